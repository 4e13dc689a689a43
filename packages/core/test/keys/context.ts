// The suites' one KeyContext builder, shared with test/.
export { contextOf } from '../../../../test/helpers/context';
