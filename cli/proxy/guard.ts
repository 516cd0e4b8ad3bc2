/**
 * Which requests the proxy refuses to sign because a web page, not the person at the keyboard, made the browser
 * send them.
 *
 * Listening on 127.0.0.1 keeps other machines out, not other sites: a page on evil.example can make the browser
 * send requests to http://127.0.0.1:9200, and this proxy would sign them as the user. Three checks, each closing
 * a different door:
 * - Host must name the proxy itself: a page that re-points its own host name at 127.0.0.1 (DNS rebinding) could
 *   otherwise read the answers.
 * - Origin, which browsers send with every cross-origin request and every POST, must be the proxy's (cross-site
 *   request forgery by fetch or a form).
 * - Sec-Fetch-Site (W3C Fetch Metadata, https://w3c.github.io/webappsec-fetch-metadata/) must be `same-origin`
 *   (Dashboards itself) or `none` (the user typed the URL or opened a bookmark). An `<img>`, a `<script>` or a link
 *   followed from another page sends a GET with no Origin at all, and that GET may be `_refresh`, `_flush` or a
 *   Dashboards API that changes state; only this header tells it apart. `same-site` is refused too: for an IP host
 *   the site is the host, so any other server on 127.0.0.1 (another port) is same-site and just as foreign.
 *   Browsers send the header to potentially trustworthy URLs, which include http://127.0.0.1 and localhost; a
 *   request without it (curl, scripts, older browsers) is allowed, as the spec's resource isolation policy does.
 */
import type * as http from 'node:http';

/** The values Sec-Fetch-Site may carry that mean "not started by another site". */
const TRUSTED_FETCH_SITES = new Set(['same-origin', 'none']);

/**
 * Why a request must be refused, or undefined when it may be signed. `port` is the proxy's own.
 * Every reason is written for the person who sees it in the browser and on the terminal.
 */
export function foreignRequestReason(headers: http.IncomingHttpHeaders, port: number): string | undefined {
  // On port 80, http's default, browsers send Host and Origin without the port (RFC 9110, section 7.2).
  const allowedHosts = new Set([
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    ...(port === 80 ? ['127.0.0.1', 'localhost'] : []),
  ]);
  const host = (headers.host ?? '').toLowerCase();
  if (!allowedHosts.has(host)) {
    return `Host ${JSON.stringify(headers.host ?? '')} is not this proxy; open http://127.0.0.1:${port}/_dashboards`;
  }
  const origin = headers.origin;
  if (origin !== undefined && !allowedHosts.has(origin.toLowerCase().replace(/^http:\/\//, ''))) {
    return `requests from pages on ${origin} are refused: the proxy signs as you`;
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && !TRUSTED_FETCH_SITES.has(site.trim().toLowerCase())) {
    const mode = headers['sec-fetch-mode'];
    const dest = headers['sec-fetch-dest'];
    const what = mode === 'navigate' ? 'a link or form' : `a ${dest ?? 'request'}`;
    return (
      `Sec-Fetch-Site: ${site} (${what} on another page) is refused: the proxy signs as you, so it relays only ` +
      `Dashboards itself and URLs you open yourself; open http://127.0.0.1:${port}/_dashboards`
    );
  }
  return undefined;
}
