/** The proxy's typed errors: start-up problems (per-request problems become HTTP answers instead). */
import { CliError } from '../errors';

/** Base class of the proxy's own errors (start-up problems; per-request problems become 502 responses). */
export class ProxyError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProxyError';
  }
}

/** The port the proxy should listen on is taken. */
export class ProxyPortInUseError extends ProxyError {
  constructor(
    readonly port: number,
    options?: { cause?: unknown },
  ) {
    super(
      `Port ${port} on 127.0.0.1 is already in use (another kfek proxy or a local OpenSearch node?): stop it or ` +
        'pick another port with --port.',
      options,
    );
    this.name = 'ProxyPortInUseError';
  }
}

/** The credential chain gave no usable credentials (none configured, SSO session ended, or expired keys). */
export class ProxyCredentialsError extends ProxyError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `No valid AWS credentials (${detail}): run \`aws sso login\` (with AWS_PROFILE set to your profile), or set ` +
        'AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY.',
      options,
    );
    this.name = 'ProxyCredentialsError';
  }
}
