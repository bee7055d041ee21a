export { contractErrors, contractSchema } from '../../support/contract-schemas.ts';
