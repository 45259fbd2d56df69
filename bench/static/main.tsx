// Entry of the benchmark's ceiling page (bench build only): the explorer's table over static or bare-fetched rows.
import { createRoot } from 'react-dom/client';
import '../../src/ui/styles.css';
import { applyInitialTheme } from '../../src/ui/lib/theme.js';
import { StaticBench } from './StaticBench.js';

applyInitialTheme();
createRoot(document.getElementById('root')!).render(<StaticBench query={new URLSearchParams(location.search)} />);
