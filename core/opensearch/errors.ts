/**
 * Errors of the OpenSearch provisioning family (spec validation, HTTP calls, provisioning steps).
 * One base class so callers (the custom resource handler, `npm start`) can catch the whole family.
 */
export class OpenSearchProvisioningError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OpenSearchProvisioningError';
  }
}

/** The provisioning spec (config sections) is invalid; the message names the field, the value and the fix. */
export class OpenSearchSpecError extends OpenSearchProvisioningError {
  /** Each problem on its own (the message joins them). */
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    super(typeof problems === 'string' ? problems : problems.join(' '));
    this.name = 'OpenSearchSpecError';
    this.problems = typeof problems === 'string' ? [problems] : problems;
  }
}

/** An HTTP call to OpenSearch or Dashboards answered with an unexpected status. */
export class OpenSearchHttpError extends OpenSearchProvisioningError {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly responseText: string,
  ) {
    super(`${method} ${path} answered HTTP ${status}: ${responseText.slice(0, 2000)}`);
    this.name = 'OpenSearchHttpError';
  }
}

/**
 * The target refused the provisioner (HTTP 401/403). Under fine-grained access control the caller must be the
 * master user or mapped to `all_access` and `security_manager`; see docs/opensearch.md.
 */
export class OpenSearchAccessDeniedError extends OpenSearchProvisioningError {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly responseText: string,
    /** How long the refusal was retried (IAM propagation), if it was. */
    readonly waitedMillis?: number,
  ) {
    super(
      `${method} ${path} was refused with HTTP ${status}: ${responseText.slice(0, 500)}. ` +
        (waitedMillis === undefined
          ? ''
          : `It was still refused after retrying for ${Math.round(waitedMillis / 1000)} s, longer than a just-attached ` +
            'IAM policy or role mapping takes to propagate, so the grant itself is missing. ') +
        'The provisioner must be the fine-grained access control master user (or mapped to all_access and ' +
        'security_manager), and the domain access policy must let its requests through; see docs/opensearch.md.',
    );
    this.name = 'OpenSearchAccessDeniedError';
  }
}
