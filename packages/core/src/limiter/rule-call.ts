import type { LeaseTicket } from './lease';
import type { CompiledRule } from './rules';
import type { LayerCall, Penalty } from '../store/store';

/** A layer call that remembers its rule, so the answer can be named without a parallel array. */
export interface RuleCall extends LayerCall {
  readonly rule: CompiledRule;
  readonly shadow: boolean;
  readonly critical: boolean;
  readonly penalty: Penalty | undefined;
  /**
   * A shadow layer asked for more than it can ever admit: it is decided at cost 0 (nothing is
   * charged) and reported as denying, since an enforced rule would refuse such a request.
   */
  readonly overCapacity: boolean;
  /** Set when this layer's units were handed out from a lease rather than charged in the store. */
  ticket: LeaseTicket | undefined;
}
