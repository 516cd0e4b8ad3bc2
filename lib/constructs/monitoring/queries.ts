import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  SAVED_QUERIES,
  SAVED_QUERY_FOLDER,
  savedQueryDefinitionName,
} from '../../../core/contracts/saved-queries';

/**
 * The saved Logs Insights queries (core/contracts/saved-queries.ts, the ones `kfek query` runs), in a folder named
 * after the deployment, over the subscribed log groups.
 */
export function createQueryDefinitions(
  scope: Construct,
  namePrefix: string,
  logGroupNames: readonly string[],
): logs.QueryDefinition[] {
  const logGroups = logGroupNames.map((name, index) =>
    logs.LogGroup.fromLogGroupName(scope, `QueryLogGroup${index}`, name),
  );
  const folder = namePrefix === 'kfek' ? SAVED_QUERY_FOLDER : namePrefix;
  return SAVED_QUERIES.map(
    (query) =>
      new logs.QueryDefinition(scope, `Query-${query.name}`, {
        queryDefinitionName: savedQueryDefinitionName(query, folder),
        queryString: new logs.QueryString({
          fields: query.parts.fields === undefined ? undefined : [...query.parts.fields],
          filterStatements:
            query.parts.filterStatements === undefined ? undefined : [...query.parts.filterStatements],
          statsStatements:
            query.parts.statsStatements === undefined ? undefined : [...query.parts.statsStatements],
          sort: query.parts.sort,
          limit: query.parts.limit,
        }),
        logGroups: logGroups.length > 0 ? logGroups : undefined,
      }),
  );
}
