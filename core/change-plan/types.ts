/**
 * The change planner's input and output: CloudFormation templates in, what CloudFormation would do with them out.
 * Plain data, so the doctor (cli/doctor), the transition tests and anyone else can build and read it.
 */

/** A CloudFormation template as JSON (what `cdk synth` writes and CloudFormation GetTemplate returns). */
export interface CfnTemplate {
  readonly Resources?: Readonly<Record<string, CfnResource>>;
  readonly Outputs?: Readonly<Record<string, CfnOutput>>;
  readonly [section: string]: unknown;
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
  /** `Delete` (the default), `Retain`, `RetainExceptOnCreate` or `Snapshot`. */
  readonly DeletionPolicy?: string;
  /** What happens to the old resource when it is replaced; same values as DeletionPolicy. */
  readonly UpdateReplacePolicy?: string;
  readonly UpdatePolicy?: Readonly<Record<string, unknown>>;
  readonly [attribute: string]: unknown;
}

export interface CfnOutput {
  readonly Value?: unknown;
  readonly Export?: { readonly Name?: unknown };
  readonly [attribute: string]: unknown;
}

export interface StackChangeInput {
  /** The deployed template of each stack that exists; undefined (or absent) for a stack that does not. */
  readonly before: Readonly<Record<string, CfnTemplate | undefined>>;
  /** The new template of each stack that will be deployed, by stack name. */
  readonly after: Readonly<Record<string, CfnTemplate>>;
  /**
   * The stacks of `after` in deploy order, dependencies first (as `cdk deploy` orders them). Every stack of
   * `after` exactly once. Export names are matched across all stacks given, so give one account and region's stacks.
   */
  readonly order: readonly string[];
}

/**
 * What happens to a stack. `create`: it does not exist yet; `update`: its template changes; `unchanged`: same
 * template (`cdk deploy` skips it); `left-deployed`: it exists but the new app no longer has it (`cdk deploy` does
 * not delete it, and its imports keep pinning the exports they use).
 */
export type StackAction = 'create' | 'update' | 'unchanged' | 'left-deployed';

export interface StackPlan {
  readonly stackName: string;
  readonly action: StackAction;
  /** Logical ids the new template adds, removes, or keeps with a different definition. */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly modified: readonly string[];
}

/**
 * Why CloudFormation refuses a stack update that involves an export. `export-removed` and `export-changed`: another
 * stack still imports it ("Cannot delete export ... as it is in use by ...", "Cannot update export ... as it is
 * in use by ..."); `import-missing`: the stack imports an export that one of these stacks produces in some version
 * but that does not exist when the stack deploys ("No export named ... found").
 */
export type RefusalKind = 'export-removed' | 'export-changed' | 'import-missing';

export interface RefusedUpdate {
  /** The stack whose deploy fails (the producer, or for `import-missing` the importer). */
  readonly stackName: string;
  readonly exportName: string;
  readonly kind: RefusalKind;
  /** Stacks importing the export at that moment (for `import-missing`, the stacks that export it in some version). */
  readonly importers: readonly string[];
  readonly message: string;
}

export interface Replacement {
  readonly stackName: string;
  readonly logicalId: string;
  /** The new resource's type. */
  readonly type: string;
  /** E.g. `create-only property /properties/Name changed`. */
  readonly reasons: readonly string[];
  /** The resource holds data or state that the new one will not have. */
  readonly stateful: boolean;
  /**
   * CloudFormation refuses the update: the resource keeps its custom name, and the new one cannot be created under
   * the name the old one still holds ("CloudFormation cannot update a stack when a custom-named resource requires
   * replacing").
   */
  readonly refused: boolean;
  /** The old resource is kept, unmanaged, after the replacement (UpdateReplacePolicy Retain). */
  readonly oldRetained: boolean;
  /** What is lost, in one sentence; empty for a resource without data or state. */
  readonly dataAtRisk: string;
}

export interface Deletion {
  readonly stackName: string;
  readonly logicalId: string;
  readonly type: string;
  readonly stateful: boolean;
  /** DeletionPolicy Retain or RetainExceptOnCreate: the resource stays in the account, unmanaged. */
  readonly retained: boolean;
  /** What is lost, in one sentence; empty when nothing is (no state, or retained). */
  readonly dataAtRisk: string;
}

/**
 * A resource the new templates create under a name that a resource of the same type still holds when it is
 * created: CloudFormation's create fails ("... already exists").
 */
export interface NameClash {
  readonly stackName: string;
  readonly logicalId: string;
  readonly type: string;
  /** The physical name (the literal values of its name properties, joined with `|`). */
  readonly name: string;
  /** The resource that holds the name. */
  readonly heldBy: { readonly stackName: string; readonly logicalId: string };
  /**
   * `created-before-deleted`: the holder is removed by the same stack update (CloudFormation creates new resources
   * before it deletes old ones) or by a stack deployed later; `retained`: the holder is removed with DeletionPolicy
   * Retain and stays; `left-deployed`: the holder's stack is no longer in the app and stays deployed; `kept`: the
   * new templates keep the holder under that name as well.
   */
  readonly reason: 'created-before-deleted' | 'retained' | 'left-deployed' | 'kept';
  readonly message: string;
}

/** How a template delivers to OpenSearch (config `delivery.mode`). */
export type DeliveryMode = 'firehose' | 'direct';

/** A stack whose reader of the events stream changes from one delivery to the other (./delivery-switch.ts). */
export interface DeliverySwitch {
  readonly stackName: string;
  readonly from: DeliveryMode;
  readonly to: DeliveryMode;
  /** What the switch does to documents in flight, and what holds (the finding's text). */
  readonly message: string;
}

export interface ChangePlan {
  /** Every stack of `after` in deploy order, then the stacks left deployed. */
  readonly stacks: readonly StackPlan[];
  readonly refused: readonly RefusedUpdate[];
  readonly replacements: readonly Replacement[];
  readonly deletions: readonly Deletion[];
  readonly nameClashes: readonly NameClash[];
  /**
   * Resource types of the new templates that the schema table does not know (regenerate it with
   * scripts/create-only-properties.ts): their create-only properties were not compared.
   */
  readonly unknownTypes: readonly string[];
  /**
   * Named changes the plan recognizes in the templates: switches of `delivery.mode` (./delivery-switch.ts).
   * @default - none
   */
  readonly deliverySwitches?: readonly DeliverySwitch[];
}
