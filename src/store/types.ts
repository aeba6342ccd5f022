/** Records as the store keeps them. Wire shapes are built from these by each resource's `view` functions. */

export type Region = "us" | "eu" | "in";
export const REGIONS: readonly Region[] = ["us", "eu", "in"];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type KeyScope = "fullAccess" | "authOnly";

export interface ApiKeyRecord {
  apiKey: string;
  name: string;
  scope: KeyScope;
  createdAt: number;
  updatedAt?: number;
  createdBy?: string;
}

export interface UserRecord {
  uid: string;
  name: string;
  avatar?: string;
  link?: string;
  role: string;
  statusMessage?: string;
  metadata?: JsonObject;
  tags: string[];
  status: "available" | "offline";
  createdAt: number;
  updatedAt?: number;
  /** Set while deactivated (reversible). */
  deactivatedAt?: number;
  /** Set by a non-permanent delete: the uid stays taken, the user is gone from every read. */
  deletedAt?: number;
}

export interface AuthTokenRecord {
  uid: string;
  authToken: string;
  createdAt: number;
  platform?: string;
  userAgent?: string;
  deviceId?: string;
  appInfo?: JsonObject;
}

export interface RoleRecord {
  role: string;
  name: string;
  description?: string;
  metadata?: JsonObject;
  settings?: { listUsers?: "all" | "friendsOnly"; sendMessagesTo?: "all" | "friendsOnly" };
  createdAt: number;
  updatedAt?: number;
}

export interface AppMeta {
  appId: string;
  name: string;
  region: Region;
  createdAt: number;
  plan: string;
  state: "active";
  version: string;
}

/** What a seed file, the data file and `/_emulator/state` hold for one app. */
export interface AppData {
  app: AppMeta;
  apiKeys: ApiKeyRecord[];
  users: UserRecord[];
  authTokens: AuthTokenRecord[];
  roles: RoleRecord[];
}

export interface StateData {
  format: "chat-emulator/state@1";
  apps: AppData[];
}
