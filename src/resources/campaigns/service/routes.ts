import { routes } from "../../../http/operation.js";
import { analyticsOperations } from "./analytics.js";
import { campaignOperations } from "./campaigns.js";
import { categoryOperations, channelOperations, templateOperations } from "./catalog.js";
import { feedOperations, pushOperations } from "./feed.js";

export { csvUploads } from "./campaigns.js";
export { campaignsAuth, serviceErrors, touchesCampaigns, unknownPath, uploadApp } from "./service.js";

/**
 * The campaigns service's 50 operations (docs/campaigns.md), relative to `/v3/campaigns`. Static paths come before
 * the parameter paths they would match (`/templates/categories` before `/templates/:id`).
 */
export const CAMPAIGN_OPERATIONS = [
  ...categoryOperations,
  ...templateOperations,
  ...channelOperations,
  ...campaignOperations,
  ...feedOperations,
  ...pushOperations,
  ...analyticsOperations,
];

/** The operations whose records change in place (the app's campaigns are touched after each write: service.ts). */
export const campaignsService = routes(...categoryOperations, ...templateOperations, ...channelOperations, ...campaignOperations, ...analyticsOperations);
/** The feed's and pushes' operations, which note each record they change. */
export const campaignRecords = routes(...feedOperations, ...pushOperations);
