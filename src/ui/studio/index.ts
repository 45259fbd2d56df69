// The config studio page (route /studio and /studio/<Kind>).
export { StudioPage, studioPath, STUDIO_KIND_LABELS } from './StudioPage.js';
