/**
 * The grade's report as the mock's admin contract describes it (`ReceiverGrade`, mock/admin/openapi/): the one shape
 * the admin route answers with, the command prints as JSON, and every format is written from.
 */
import type { components } from '../../generated/mock-admin/openapi.js';

type AdminSchemas = components['schemas'];

export type ReceiverGrade = AdminSchemas['ReceiverGrade'];
export type GradedCase = AdminSchemas['ReceiverGradeCase'];
export type Exchange = AdminSchemas['ReceiverGradeExchange'];
export type CaseGroup = GradedCase['group'];
export type CaseOutcome = GradedCase['outcome'];
export type GradeLimits = ReceiverGrade['limits'];
