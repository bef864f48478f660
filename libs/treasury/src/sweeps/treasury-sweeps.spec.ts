import { evmTrackers, SweepKind } from './treasury-sweeps';

describe('EVM sweep pass: which trackers run', () => {
  const kinds = (...list: SweepKind[]) => new Set(list);

  it("follows today's kind when nothing is live", () => {
    expect(evmTrackers(kinds(), false)).toEqual(['batch']);
    expect(evmTrackers(kinds(), true)).toEqual(['top_up']);
  });

  it('keeps following live 7702 batches after gasTopUp was turned on', () => {
    expect(evmTrackers(kinds('batch'), true)).toEqual(['batch', 'top_up']);
  });

  it('keeps following live top-up sweeps after gasTopUp was turned off', () => {
    expect(evmTrackers(kinds('top_up'), false)).toEqual(['batch', 'top_up']);
  });
});
