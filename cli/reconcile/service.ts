/**
 * One reconcile run with the transform's own planner (planner.ts, which runs lambda/transform's pure core): the run
 * itself is core/reconcile/service.ts. `kfek reconcile` (command.ts) and the scheduled reconcile function
 * (lambda/reconcile/handler.ts, the one import of cli/ that eslint.config.js allows there) both call it.
 */
import type { Clock } from '../../core/reconcile/ports';
import {
  type ReconcileClients,
  type ReconcileRun,
  type ReconcileSettings,
  runReconcileWith,
} from '../../core/reconcile/service';
import { TransformPlanner } from './planner';

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
