/**
 * One reconcile run of `kfek reconcile` (command.ts) with the transform's own planner (core/reconcile/planner.ts,
 * which reads the decisions of the transform's pure core, core/transform): the run itself is
 * core/reconcile/service.ts, which the scheduled reconcile function runs with the same planner.
 */
import type { Clock } from '../../core/reconcile/ports';
import {
  type ReconcileClients,
  type ReconcileRun,
  type ReconcileSettings,
  runReconcileWith,
} from '../../core/reconcile/service';
import { TransformPlanner } from '../../core/reconcile/planner';

export {
  bucketKeptSources,
  type GroupSetting,
  type ReconcileClients,
  type ReconcileRoute,
  type ReconcileRun,
  type ReconcileSettings,
} from '../../core/reconcile/service';

export function runReconcile(
  settings: ReconcileSettings,
  clients: ReconcileClients,
  clock: Clock,
  onProgress?: (note: string) => void,
): Promise<ReconcileRun> {
  return runReconcileWith(
    (transform) => new TransformPlanner(transform),
    settings,
    clients,
    clock,
    onProgress,
  );
}
