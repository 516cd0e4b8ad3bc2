/**
 * Who owns an object in the domain (issue 39), as domain-state.ts reads it: kfek's record (registry.ts) when the domain
 * has one, the profile's own names always, and, once, on a domain deployed before the record, the marked objects
 * whose names kfek renders. Pure.
 */
import type { OwnedKind } from './drift';
import { type Registry, registryKey } from './registry';
import { familyNames, ingestPipelineName } from './route-spec';

/**
 * The record decides when the domain has one. Before it (a domain deployed by older kfek), an object with kfek's old
 * mark is adopted only when kfek itself renders its name: the previous spec's (`adopt`), or a retired family's own
 * names, from its template's stem. The names the current profile renders (`claim`) are kfek's in either case: it
 * writes them anyway.
 */
export class Ownership {
  private readonly adopt: Set<string>;
  constructor(
    private readonly name: string,
    private readonly registry: Registry | undefined,
    private readonly claim: ReadonlySet<string>,
    adopt: ReadonlySet<string>,
  ) {
    this.adopt = new Set(adopt);
  }

  owns(kind: OwnedKind, objectName: string, marked: boolean): boolean {
    const key = registryKey(kind, objectName);
    if (this.claim.has(key)) return true;
    if (this.registry !== undefined) return this.registry.objects.has(key);
    return marked && this.adopt.has(key);
  }

  /**
   * Before the record: a marked template named as its own stem names it (`<name>-<stem>`) is kfek's, and so are its
   * family's names (`reader`: the role its `_meta` ledger names). A copy under another name is not.
   */
  adoptTemplate(templateName: string, stem: string, reader: unknown): boolean {
    if (this.registry !== undefined || templateName !== familyNames(this.name, stem).indexTemplate) {
      return this.owns('index-template', templateName, true);
    }
    for (const key of [
      registryKey('index-template', templateName),
      registryKey('ism-policy', familyNames(this.name, stem).ismPolicy),
      registryKey('ingest-pipeline', ingestPipelineName(this.name, stem)),
      registryKey('saved-object', `index-pattern/${this.name}-${stem}-index-pattern`),
      ...(typeof reader === 'string' ? [registryKey('security-role', reader)] : []),
    ]) {
      this.adopt.add(key);
    }
    return true;
  }
}
