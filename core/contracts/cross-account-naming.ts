/**
 * Names shared by the cross-account stacks (lib/cross-account.ts) and the transform: the destination a source
 * account subscribes to, and the subscription filter name that tells the transform which region a record came from.
 *
 * Why the region rides in the filter name: a CloudWatch Logs envelope carries `owner` (the source account) but no
 * region, and every region's destination feeds the same raw stream. The envelope does carry the names of the
 * subscription filters that matched (`subscriptionFilters`), and kfek's source stacks name theirs
 * `<stem>@<region>`, so the transform can fill `cloudwatch.region` without trusting anything in the log event.
 */

/** The separator between the stem and the region in a source stack's subscription filter name. */
const REGION_MARK = '@';
const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;

/** The CloudWatch Logs destination of a profile in one region (`kfek-multi`; its ARN names the region). */
export function destinationNameFor(stem: string): string {
  return stem;
}

/**
 * The subscription filter (and account policy) name of a source stack in `region`: `kfek-multi@eu-west-1`.
 * Filter names may not contain `:` or `*` (PutSubscriptionFilter `filterName` pattern `[^:*]*`); `@` is allowed.
 */
export function subscriptionFilterNameFor(stem: string, region: string): string {
  return `${stem}${REGION_MARK}${region}`;
}

/** The source region named by the first kfek source-stack filter among an envelope's `subscriptionFilters`. */
export function regionFromSubscriptionFilters(filters: readonly unknown[]): string | undefined {
  for (const filter of filters) {
    if (typeof filter !== 'string') continue;
    const at = filter.lastIndexOf(REGION_MARK);
    if (at <= 0) continue;
    const region = filter.slice(at + 1);
    if (REGION.test(region)) return region;
  }
  return undefined;
}
