/**
 * Runs a Lambda handler in a forked child process instead of in-process, so a fault test can SIGKILL "the
 * function" mid-batch. Like a Lambda execution environment that crashes: the invocation in flight fails (a
 * function error, so the event-source loop retries the batch from its checkpoint) and the next invocation gets a
 * fresh process (a cold start: the handler module is loaded again).
 */
import { type ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import type { Context, KinesisStreamBatchResponse } from 'aws-lambda';
import type { ChildReply, ChildRequest, ContextData } from './child-protocol';
import { TransformProcessError } from './errors';
import type { KinesisBatchHandler } from './event-source-loop';

const CHILD_ENTRY = path.join(__dirname, 'handler-child.ts');

export interface ChildProcessHandlerProps {
  /** The handler module, as `require` resolves it (a .ts file is loaded through ts-node, transpile only). */
  readonly modulePath: string;
  /** @default 'handler' */
  readonly exportName?: string;
  /** The child's environment on top of this process's (the Lambda environment variables). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Modules the child loads (`node -r`) before the handler, e.g. a test's warning filter.
   * @default - none
   */
  readonly preload?: readonly string[];
  /** @default - silent */
  readonly log?: (line: string) => void;
}

interface Pending {
  readonly resolve: (response: unknown) => void;
  readonly reject: (error: Error) => void;
}

interface Child {
  readonly process: ChildProcess;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
}

/** A {@link KinesisBatchHandler} whose handler runs in a child process, restarted when it dies. */
export class ChildProcessHandler {
  private child: Child | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly startedListeners: Array<(pid: number) => void> = [];
  private started = 0;

  constructor(private readonly props: ChildProcessHandlerProps) {}

  /** The handler to give the event-source loop (the Kinesis transport's answer is a partial batch response). */
  readonly handler: KinesisBatchHandler = async (event, context) =>
    (await this.invoke(event, context)) as KinesisStreamBatchResponse | void;

  /** The running child's pid, if one runs. */
  pid(): number | undefined {
    return this.child?.process.pid;
  }

  /** Child processes started so far (1 + restarts). */
  processesStarted(): number {
    return this.started;
  }

  /** Calls `listener` with the child's pid each time the child has received an invocation (a test's hook). */
  onInvocationStarted(listener: (pid: number) => void): void {
    this.startedListeners.push(listener);
  }

  /** Ends the child (SIGTERM) and waits for it; invocations in flight fail. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    child.process.kill('SIGTERM');
    await child.exited;
  }

  /** Invokes the handler in the child with any event; resolves with its answer as it crossed IPC (JSON-like). */
  async invoke(event: unknown, context: Context): Promise<unknown> {
    const child = this.child ?? this.spawn();
    await child.ready;
    const id = this.nextId++;
    const request: ChildRequest = {
      id,
      event,
      context: contextData(context),
      // Wall-clock time on purpose: the deadline crosses into another process, whose only shared clock it is.
      deadline: Date.now() + context.getRemainingTimeInMillis(),
    };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.process.send(request, (error) => {
        if (error === null) return;
        this.pending.delete(id);
        reject(new TransformProcessError(`could not send the invocation to the transform process: ${error}`));
      });
    });
  }

  private spawn(): Child {
    const proc = fork(CHILD_ENTRY, [], {
      execArgv: [
        '-r',
        require.resolve('ts-node/register/transpile-only'),
        ...(this.props.preload ?? []).flatMap((m) => ['-r', m]),
      ],
      env: {
        ...process.env,
        ...this.props.env,
        KFEK_CHILD_HANDLER_MODULE: this.props.modulePath,
        KFEK_CHILD_HANDLER_EXPORT: this.props.exportName ?? 'handler',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.started += 1;
    let markReady: () => void = () => undefined;
    let failReady: (error: Error) => void = () => undefined;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    // A child that dies before it is ready rejects `ready`; nobody may be awaiting it yet.
    ready.catch(() => undefined);
    const exited = new Promise<void>((resolve) => {
      proc.on('exit', (code, signal) => {
        if (this.child?.process === proc) this.child = undefined;
        const error = new TransformProcessError(
          `the transform process ${proc.pid} exited (${signal ?? `code ${code}`}) during the invocation; ` +
            'the batch is retried from its checkpoint in a new process',
        );
        failReady(error);
        for (const [id, pending] of this.pending) {
          this.pending.delete(id);
          pending.reject(error);
        }
        this.props.log?.(`transform process ${proc.pid} exited (${signal ?? `code ${code}`})`);
        resolve();
      });
    });
    proc.on('message', (message: ChildReply) => {
      switch (message.kind) {
        case 'ready':
          markReady();
          return;
        case 'load-error':
          failReady(new TransformProcessError(`the transform process could not load: ${message.message}`));
          proc.kill('SIGKILL');
          return;
        case 'started':
          for (const listener of this.startedListeners) listener(proc.pid ?? -1);
          return;
        case 'result':
          this.settle(message.id, (p) => p.resolve(message.response));
          return;
        case 'error':
          this.settle(message.id, (p) => p.reject(new TransformProcessError(message.message)));
          return;
      }
    });
    const child: Child = { process: proc, ready, exited };
    this.child = child;
    return child;
  }

  private settle(id: number, action: (pending: Pending) => void): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    action(pending);
  }
}

/** The data fields of a Context (its functions cannot cross IPC; the child rebuilds them). */
function contextData(context: Context): ContextData {
  return {
    callbackWaitsForEmptyEventLoop: context.callbackWaitsForEmptyEventLoop,
    functionName: context.functionName,
    functionVersion: context.functionVersion,
    invokedFunctionArn: context.invokedFunctionArn,
    memoryLimitInMB: context.memoryLimitInMB,
    awsRequestId: context.awsRequestId,
    logGroupName: context.logGroupName,
    logStreamName: context.logStreamName,
    identity: context.identity,
    clientContext: context.clientContext,
  };
}
