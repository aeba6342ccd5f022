import type { AppInfo, Directory } from "../api";

/** What every per-app view gets: the app, the directory of apps and the route's parameter (a selected item). */
export interface AppViewProps {
  app: AppInfo;
  dir: Directory;
  param?: string;
}

export interface User {
  uid: string;
  name: string;
  role: string;
  status: string;
  avatar?: string;
  link?: string;
  metadata?: unknown;
  tags?: string[];
  createdAt: number;
  updatedAt?: number;
  deactivatedAt?: number;
}

export interface Group {
  guid: string;
  name: string;
  type: "public" | "private" | "password";
  owner?: string;
  membersCount: number;
  description?: string;
  tags?: string[];
  metadata?: unknown;
  createdAt: number;
  conversationId?: string;
}
