import { dashboardsIndexPattern } from './families';
import type { OpenSearchSpec } from './spec';

/**
 * OpenSearch Dashboards saved objects, created with `POST <dashboards>/api/saved_objects/_bulk_create?overwrite=true`
 * and the `osd-xsrf: true` header (https://docs.opensearch.org/latest/dashboards/management/saved-objects-apis/).
 * Fixed ids plus `overwrite=true` make the call idempotent: a redeploy replaces kfek's starter objects and leaves
 * everything people saved under other ids alone.
 *
 * The `visState`, `searchSourceJSON` and `panelsJSON` attributes are JSON strings inside JSON: that is how
 * Dashboards stores them. The references name the index pattern instead of embedding its id in those strings
 * (`indexRefName` / `panelRefName`), the form Dashboards exports since 7.x.
 */

export interface SavedObject {
  readonly type: 'index-pattern' | 'search' | 'visualization' | 'dashboard';
  readonly id: string;
  readonly attributes: Record<string, unknown>;
  readonly references: ReadonlyArray<{ readonly name: string; readonly type: string; readonly id: string }>;
}

const SEARCH_SOURCE_INDEX_REF = 'kibanaSavedObjectMeta.searchSourceJSON.index';

/** Ids of kfek's saved objects, stable across deploys. */
export function savedObjectIds(spec: OpenSearchSpec): {
  readonly indexPattern: string;
  readonly errorSearch: string;
  readonly errorsOverTime: string;
  readonly topLogGroups: string;
  readonly lambdaDurations: string;
  readonly dashboard: string;
} {
  const stem = `${spec.name}-${spec.indexPrefix}`;
  return {
    indexPattern: `${stem}-index-pattern`,
    errorSearch: `${stem}-errors`,
    errorsOverTime: `${stem}-errors-over-time`,
    topLogGroups: `${stem}-top-log-groups`,
    lambdaDurations: `${stem}-lambda-durations`,
    dashboard: `${stem}-overview`,
  };
}

function searchSource(query: string): { kibanaSavedObjectMeta: { searchSourceJSON: string } } {
  return {
    kibanaSavedObjectMeta: {
      searchSourceJSON: JSON.stringify({
        query: { query, language: 'kuery' },
        filter: [],
        indexRefName: SEARCH_SOURCE_INDEX_REF,
      }),
    },
  };
}

function visualization(
  id: string,
  title: string,
  indexPatternId: string,
  query: string,
  visState: { type: string; params: Record<string, unknown>; aggs: ReadonlyArray<Record<string, unknown>> },
): SavedObject {
  return {
    type: 'visualization',
    id,
    attributes: {
      title,
      description: 'Created by kfek; redeploying overwrites it. Save a copy to customise.',
      version: 1,
      uiStateJSON: '{}',
      visState: JSON.stringify({ title, ...visState }),
      ...searchSource(query),
    },
    references: [{ name: SEARCH_SOURCE_INDEX_REF, type: 'index-pattern', id: indexPatternId }],
  };
}

const dateHistogramAgg = {
  id: '2',
  enabled: true,
  type: 'date_histogram',
  schema: 'segment',
  params: { field: '@timestamp', interval: 'auto', min_doc_count: 1, extended_bounds: {} },
};

/** Axis parameters shared by the line and histogram charts (the Dashboards defaults, written out). */
function xyParams(type: 'histogram' | 'line', valueLabel: string): Record<string, unknown> {
  return {
    type,
    addTooltip: true,
    addLegend: true,
    legendPosition: 'right',
    times: [],
    addTimeMarker: false,
    grid: { categoryLines: false },
    categoryAxes: [
      {
        id: 'CategoryAxis-1',
        type: 'category',
        position: 'bottom',
        show: true,
        scale: { type: 'linear' },
        labels: { show: true, filter: true, truncate: 100 },
        title: {},
      },
    ],
    valueAxes: [
      {
        id: 'ValueAxis-1',
        name: 'LeftAxis-1',
        type: 'value',
        position: 'left',
        show: true,
        scale: { type: 'linear', mode: 'normal' },
        labels: { show: true, rotate: 0, filter: false, truncate: 100 },
        title: { text: valueLabel },
      },
    ],
    seriesParams: [
      {
        show: true,
        type,
        mode: 'normal',
        data: { label: valueLabel, id: '1' },
        valueAxis: 'ValueAxis-1',
        drawLinesBetweenPoints: true,
        showCircles: true,
      },
    ],
  };
}

/** The starter dashboard's visualizations: errors over time, top log groups, Lambda durations. */
function starterVisualizations(
  ids: ReturnType<typeof savedObjectIds>,
): readonly [SavedObject, SavedObject, SavedObject] {
  const errorsOverTime = visualization(
    ids.errorsOverTime,
    'Errors over time',
    ids.indexPattern,
    'level:ERROR',
    {
      type: 'histogram',
      params: xyParams('histogram', 'Errors'),
      aggs: [{ id: '1', enabled: true, type: 'count', schema: 'metric', params: {} }, dateHistogramAgg],
    },
  );
  const topLogGroups = visualization(ids.topLogGroups, 'Top log groups', ids.indexPattern, '', {
    type: 'table',
    params: { perPage: 10, showPartialRows: false, showMetricsAtAllLevels: false, showTotal: false },
    aggs: [
      { id: '1', enabled: true, type: 'count', schema: 'metric', params: {} },
      {
        id: '2',
        enabled: true,
        type: 'terms',
        schema: 'bucket',
        params: { field: 'cloudwatch.logGroup', size: 10, order: 'desc', orderBy: '1', otherBucket: true },
      },
    ],
  });
  // REPORT lines carry lambda.durationMs; the transform fills it from both text and JSON platform logs.
  const lambdaDurations = visualization(
    ids.lambdaDurations,
    'Lambda durations (REPORT lines)',
    ids.indexPattern,
    'lambda.durationMs:*',
    {
      type: 'line',
      params: xyParams('line', 'Duration (ms)'),
      aggs: [
        {
          id: '1',
          enabled: true,
          type: 'percentiles',
          schema: 'metric',
          params: { field: 'lambda.durationMs', percents: [50, 95, 99] },
        },
        dateHistogramAgg,
      ],
    },
  );
  return [errorsOverTime, topLogGroups, lambdaDurations];
}

/** The starter dashboard: `visualizations` side by side, two a row. */
function starterDashboard(
  spec: OpenSearchSpec,
  dashboardId: string,
  visualizations: readonly SavedObject[],
): SavedObject {
  const panels = visualizations.map((vis, i) => ({
    panelIndex: String(i + 1),
    gridData: { x: (i % 2) * 24, y: Math.floor(i / 2) * 15, w: 24, h: 15, i: String(i + 1) },
    version: '3.0.0',
    embeddableConfig: {},
    panelRefName: `panel_${i}`,
    vis,
  }));
  return {
    type: 'dashboard',
    id: dashboardId,
    attributes: {
      title: `kfek logs (${spec.indexPattern})`,
      description: 'Errors over time, top log groups and Lambda durations. Created by kfek.',
      panelsJSON: JSON.stringify(panels.map(({ vis: _vis, ...panel }) => panel)),
      optionsJSON: JSON.stringify({ hidePanelTitles: false, useMargins: true }),
      timeRestore: true,
      timeFrom: 'now-24h',
      timeTo: 'now',
      refreshInterval: { pause: true, value: 0 },
      version: 1,
      kibanaSavedObjectMeta: {
        searchSourceJSON: JSON.stringify({ query: { query: '', language: 'kuery' }, filter: [] }),
      },
    },
    references: panels.map((p) => ({ name: p.panelRefName, type: 'visualization', id: p.vis.id })),
  };
}

/** The saved objects, in creation order (referenced objects first). */
export function buildSavedObjects(
  spec: OpenSearchSpec,
  /**
   * Every stem kfek has in the domain (issue 30): an index pattern excludes the indices of the stems that extend its
   * own (`logs-*,-logs-audit-*`), because the security plugin refuses a whole search that reaches one index the
   * reader may not read. @default - the spec's stems
   */
  stems: Iterable<string> = [spec.indexPrefix, ...spec.routes.map((r) => r.indexStem)],
): readonly SavedObject[] {
  const known = [...stems];
  const ids = savedObjectIds(spec);
  const indexPattern: SavedObject = {
    type: 'index-pattern',
    id: ids.indexPattern,
    attributes: { title: dashboardsIndexPattern(spec.indexPrefix, known), timeFieldName: '@timestamp' },
    references: [],
  };
  const errorSearch: SavedObject = {
    type: 'search',
    id: ids.errorSearch,
    attributes: {
      title: `Errors (${spec.indexPattern})`,
      description: 'Log events with level ERROR (the level field is upper-cased at index time).',
      columns: ['cloudwatch.logGroup', 'level', 'message'],
      sort: [['@timestamp', 'desc']],
      version: 1,
      ...searchSource('level:ERROR'),
    },
    references: [{ name: SEARCH_SOURCE_INDEX_REF, type: 'index-pattern', id: ids.indexPattern }],
  };
  const [errorsOverTime, topLogGroups, lambdaDurations] = starterVisualizations(ids);
  const dashboard = starterDashboard(spec, ids.dashboard, [errorsOverTime, topLogGroups, lambdaDurations]);
  // One index pattern per route, so each team finds its own indices in Discover. The starter dashboard stays on
  // the default route's indices; a route's readers could not read the default's anyway.
  const routePatterns = spec.routes.map((route): SavedObject => ({
    type: 'index-pattern',
    id: route.names.indexPatternObject,
    attributes: { title: dashboardsIndexPattern(route.indexStem, known), timeFieldName: '@timestamp' },
    references: [],
  }));
  return [
    indexPattern,
    errorSearch,
    errorsOverTime,
    topLogGroups,
    lambdaDurations,
    dashboard,
    ...routePatterns,
  ];
}
