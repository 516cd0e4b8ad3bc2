/**
 * What the doctor learned (facts, each a {@link Probe}) and what it says about it (findings): the types shared by
 * the gathering (facts.ts, aws-ports.ts) and the checks.
 */
import type { CfnTemplate } from '../../core/change-plan';
import type { DomainState } from '../../core/opensearch/domain-state';
import type { ServerlessName } from '../../core/opensearch/serverless-held';
import type { AuthInfo } from '../proxy';
import type { NamedResource, ProfilePlan } from './plan';

export type Status = 'ok' | 'warn' | 'fail' | 'skip';

export interface Finding {
  /** Short id of the check (`credentials`, `bootstrap`, ...). */
  readonly check: string;
  readonly status: Status;
  /** What was found, in plain words. */
  readonly finding: string;
  /** What to do about it; absent when nothing needs doing. */
  readonly fix?: string;
}

/** A fact that was gathered, or why it could not be. */
export type Probe<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export interface BootstrapFacts {
  /** Status of the `CDKToolkit` stack; undefined when it does not exist. */
  readonly stackStatus: string | undefined;
  /** Its `BootstrapVersion` output. */
  readonly stackVersion: number | undefined;
  /** The SSM parameter the templates read at deploy time; undefined when missing. */
  readonly parameterVersion: number | undefined;
}

export interface LambdaFacts {
  /** `AccountLimit.ConcurrentExecutions`. */
  readonly concurrentExecutions: number;
  /** `AccountLimit.UnreservedConcurrentExecutions`. */
  readonly unreservedConcurrentExecutions: number;
}

/** `DescribeInstanceTypeLimits` for one node role: undefined limits mean the type is not offered. */
export interface InstanceFit {
  readonly role: 'data' | 'master';
  readonly instanceType: string;
  /** Why the type is not offered (the API's error); undefined when it is. */
  readonly unavailable?: string;
  readonly minimumCount?: number;
  readonly maximumCount?: number;
  /** EBS volume limits (GiB) of the storage type the domain uses. */
  readonly minimumVolumeGb?: number;
  readonly maximumVolumeGb?: number;
}

/** A resource with a name the profile wants that already exists in the account. */
export interface ExistingName extends NamedResource {
  /** The stack that owns it, when CloudFormation knows; undefined when it was created outside CloudFormation. */
  readonly ownerStack: string | undefined;
}

/** What the account holds under a {@link ServerlessName} (cli/doctor/serverless-names.ts). */
export interface HeldName extends ServerlessName {
  /** Undefined when the name is free (or could not be looked up: {@link error}). */
  readonly held?: {
    /** CloudFormation's physical id of such a resource: a collection's id, a policy's name. */
    readonly physicalId: string;
    /** A collection's `{ type, group }`, a policy's document. */
    readonly content: unknown;
    /** The stack of this app that owns it; undefined when none does. */
    readonly ownerStack?: string;
  };
  /** Why it could not be looked up. */
  readonly error?: string;
}

export interface DeployedStack {
  readonly stackName: string;
  readonly status: string;
  /** Output values by export name. */
  readonly exports: Readonly<Record<string, string>>;
  /** Output values by output key. */
  readonly outputs: Readonly<Record<string, string>>;
}

/** How far behind a stream's readers were over the last hour; undefined when the metric has no datapoint. */
export interface StreamLag {
  readonly streamName: string;
  readonly maxIteratorAgeMillis: number | undefined;
}

/** A deployed stack's template (CloudFormation GetTemplate, stage Original: as it was submitted). */
export interface DeployedTemplate {
  readonly stackName: string;
  readonly status: string;
  readonly template: CfnTemplate;
}

export interface SubscriptionFacts {
  readonly logGroupName: string;
  /** Destination ARNs of its subscription filters; undefined when the log group does not exist. */
  readonly destinationArns: readonly string[] | undefined;
}

/** Everything the doctor learned. A probe is undefined when it was not attempted (see the `skip` findings). */
export interface DoctorFacts {
  readonly profile: string;
  readonly region: Probe<string>;
  readonly identity?: Probe<string>;
  readonly plan?: Probe<ProfilePlan>;
  readonly bootstrap?: Probe<BootstrapFacts>;
  readonly lambda?: Probe<LambdaFacts>;
  readonly instances?: Probe<readonly InstanceFit[]>;
  readonly existing?: Probe<readonly ExistingName[]>;
  /** A serverless profile's collection and policy names as the account holds them (cli/doctor/serverless-names.ts). */
  readonly serverlessNames?: Probe<readonly HeldName[]>;
  /** This profile's stacks that exist (absent ones are not listed). */
  readonly stacks?: Probe<readonly DeployedStack[]>;
  /** The deployed templates of this account and region's stacks of the profile (absent ones are not listed). */
  readonly deployedTemplates?: Probe<readonly DeployedTemplate[]>;
  readonly subscriptions?: Probe<readonly SubscriptionFacts[]>;
  readonly authInfo?: Probe<AuthInfo>;
  /** How far behind the readers of the streams whose retention the deploy lowers are (cli/doctor/stream-retention.ts). */
  readonly streamLag?: Probe<readonly StreamLag[]>;
  /** kfek's objects and indices in the domain, read signed as the caller (cli/doctor/domain.ts). */
  readonly domain?: Probe<DomainState>;
  /** When the facts were gathered (epoch ms): the domain plan's clock. @default - Date.now() at check time */
  readonly now?: number;
}

/** A check that did not run, and why. */
export const skip = (check: string, why: string): Finding => ({ check, status: 'skip', finding: why });

/** A check whose question the account did not answer: the error as the finding, and what to do about it. */
export const unanswered = (check: string, status: 'warn' | 'fail', error: string, fix: string): Finding => ({
  check,
  status,
  finding: error,
  fix,
});
