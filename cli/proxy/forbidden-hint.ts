/** The one line the proxy logs on the domain's first 403: who the caller is to OpenSearch, and the fix. */
import type { AuthInfo } from './signing';
import { messageOf } from '../../core/errors';
import { mappableArn } from './signing';

export interface ForbiddenHintProps {
  /** How the security plugin sees the caller (undefined when it will not say). */
  readonly authInfo: () => Promise<AuthInfo | undefined>;
  /** The caller's IAM identity ARN. */
  readonly identity: () => Promise<string>;
  readonly log: (line: string) => void;
}

/** Returns the hint: it logs on its first call only, so a page of refused requests prints one line. */
export function forbiddenHint(props: ForbiddenHintProps): (method: string, path: string) => Promise<void> {
  let hinted = false;
  return async (method, path) => {
    if (hinted) return;
    hinted = true;
    const info = await props.authInfo();
    if (info !== undefined && info.roles.length > 0) {
      // Mapped, but to roles that do not allow this request (a reader opening the security pages, say).
      props.log(
        `kfek proxy: the domain answered 403 to ${method} ${path}: you (backend role ` +
          `${info.backendRoles.join(', ')}) are mapped to ${info.roles.join(', ')}, which do not allow it; for ` +
          'full access put that backend role in openSearch.access.adminBackendRoles and redeploy.',
      );
      return;
    }
    let who: string;
    if (info !== undefined && info.backendRoles.length > 0) {
      who = `(OpenSearch sees you as backend role ${info.backendRoles.join(', ')})`;
    } else {
      try {
        who = mappableArn(await props.identity());
      } catch (error) {
        who = `(unknown: ${messageOf(error)})`;
      }
    }
    props.log(
      `kfek proxy: the domain answered 403: your IAM principal ${who} is not mapped: add it to ` +
        'openSearch.access.adminBackendRoles or readerBackendRoles and redeploy (an assumed role is mapped by its ' +
        'role ARN, arn:aws:iam::<account>:role/<name>).',
    );
  };
}
