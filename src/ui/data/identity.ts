// Who a token signs in as: a SelfSubjectReview sent with that token (not the signed-in one), through a
// client of its own whose 401 does not sign the current user out.
import { ApiClient, ApiError } from '../../client/index.js';

export interface UserInfo {
  username?: string;
  groups?: string[];
  uid?: string;
}

/** The user a token (or none) is, or undefined when the server answers 401. */
export async function whoAmI(token: string | undefined): Promise<UserInfo | undefined> {
  const probe = new ApiClient({ baseUrl: '', token });
  try {
    const r = await probe.request<{ status?: { userInfo?: UserInfo } }>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    return r.body.status?.userInfo ?? {};
  } catch (e) {
    if (e instanceof ApiError && e.code === 401) return undefined;
    throw e;
  }
}
