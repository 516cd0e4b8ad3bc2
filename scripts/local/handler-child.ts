/**
 * The child-process side of {@link ChildProcessHandler} (scripts/local/child-handler.ts): loads a handler module
 * (its environment was set by the parent's `fork`) and answers invocations sent over IPC, one at a time, like a
 * Lambda execution environment. Started with `fork`; never run by hand.
 */
import type { Context } from 'aws-lambda';
import type { ChildReply, ChildRequest } from './child-protocol';

type Handler = (event: unknown, context: Context) => Promise<unknown>;

function contextOf(request: ChildRequest): Context {
  const c = request.context;
  return {
    ...c,
    // The parent's deadline is wall-clock time (the one clock two processes share).
    getRemainingTimeInMillis: () => Math.max(0, request.deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function reply(message: ChildReply): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const modulePath = process.env.KFEK_CHILD_HANDLER_MODULE;
  const exportName = process.env.KFEK_CHILD_HANDLER_EXPORT ?? 'handler';
  if (modulePath === undefined || process.send === undefined) {
    throw new Error(
      'handler-child.ts is started by ChildProcessHandler (fork with KFEK_CHILD_HANDLER_MODULE)',
    );
  }
  const mod = (await import(modulePath)) as Record<string, unknown>;
  const handler = mod[exportName];
  if (typeof handler !== 'function') {
    reply({ kind: 'load-error', message: `${modulePath} does not export a function \`${exportName}\`` });
    return;
  }
  process.on('message', (request: ChildRequest) => {
    reply({ kind: 'started', id: request.id });
    (handler as Handler)(request.event, contextOf(request)).then(
      (response) => reply({ kind: 'result', id: request.id, response: response ?? null }),
      (error: unknown) => reply({ kind: 'error', id: request.id, message: String(error) }),
    );
  });
  reply({ kind: 'ready' });
}

main().catch((error: unknown) => {
  reply({ kind: 'load-error', message: String(error) });
});
