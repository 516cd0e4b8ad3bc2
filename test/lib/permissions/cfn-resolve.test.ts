import { CfnResolver, UnresolvableReferenceError, type StackTemplate } from '../../helpers/cfn-resolve';

const TARGET = { account: '111122223333', region: 'eu-west-1' };

const SEARCH: StackTemplate = {
  stackName: 'kfek-x-search',
  template: {
    Resources: {
      RawStreamAB12: { Type: 'AWS::Kinesis::Stream', Properties: {} },
      DomainCD34: { Type: 'AWS::OpenSearchService::Domain', Properties: { DomainName: 'kfek-x' } },
      Odd: { Type: 'AWS::Some::Thing', Properties: {} },
    },
    Outputs: {
      RawArn: {
        Value: { 'Fn::GetAtt': ['RawStreamAB12', 'Arn'] },
        Export: { Name: { 'Fn::Join': [':', [{ Ref: 'AWS::StackName' }, 'RawArn']] } },
      },
    },
  },
};

const PIPELINE: StackTemplate = {
  stackName: 'kfek-x-pipeline',
  template: {
    Resources: {
      RoleEF56: { Type: 'AWS::IAM::Role', Properties: {} },
      GroupGH78: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: '/kfek/x' } },
    },
  },
};

describe('CfnResolver', () => {
  const resolver = new CfnResolver([SEARCH, PIPELINE], TARGET);

  test('resolves pseudo parameters, Fn::Join, Fn::Sub and Fn::GetAtt to concrete ARNs', () => {
    // GIVEN
    const value = {
      A: {
        'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']],
      },
      B: { 'Fn::Sub': 'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:${GroupGH78}' },
      C: { 'Fn::GetAtt': ['RoleEF56', 'Arn'] },
      D: { 'Fn::Select': [1, { 'Fn::Split': ['/', 'a/b/c'] }] },
    };

    // WHEN
    const resolved = resolver.resolve('kfek-x-pipeline', value);

    // THEN
    expect(resolved).toEqual({
      A: 'arn:aws:iam::111122223333:root',
      B: 'arn:aws:logs:eu-west-1:111122223333:log-group:/kfek/x',
      C: 'arn:aws:iam::111122223333:role/kfek-x-pipeline-RoleEF56',
      D: 'b',
    });
  });

  test('resolves Fn::ImportValue through the export of the other stack, in that stack', () => {
    expect(resolver.resolve('kfek-x-pipeline', { 'Fn::ImportValue': 'kfek-x-search:RawArn' })).toBe(
      'arn:aws:kinesis:eu-west-1:111122223333:stream/kfek-x-search-RawStreamAB12',
    );
  });

  test('uses explicit names (DomainName) as written', () => {
    expect(resolver.attribute('kfek-x-search', 'DomainCD34', 'Arn')).toBe(
      'arn:aws:es:eu-west-1:111122223333:domain/kfek-x',
    );
  });

  test('fails when a reference names an unknown resource type, export or attribute', () => {
    expect(() => resolver.resolve('kfek-x-search', { Ref: 'Odd' })).toThrow(UnresolvableReferenceError);
    expect(() => resolver.resolve('kfek-x-search', { 'Fn::ImportValue': 'nope' })).toThrow(/no such export/);
    expect(() => resolver.attribute('kfek-x-search', 'RawStreamAB12', 'Nope')).toThrow(/RawStreamAB12\.Nope/);
    expect(() => resolver.resolve('kfek-x-search', { 'Fn::If': ['c', 1, 2] })).toThrow(/Fn::If/);
  });
});
