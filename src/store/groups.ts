import { SortedIndex } from "./sorted-index.js";
import { addTo, removeFrom } from "./multimap.js";
import { Noting, type ListChange } from "./noted.js";
import type { BanRecord, GroupData, GroupRecord, GroupType, MemberRecord } from "./types.js";

export type GroupSort = "name" | "guid" | "createdAt";

const lower = (s: string) => s.toLowerCase();
const byGuid = (a: GroupRecord, b: GroupRecord) => (a.guid < b.guid ? -1 : a.guid > b.guid ? 1 : 0);
/** An index ordered by `key`, then guid, with the matching bulk-load key (numbers padded to sort as text). */
function byKey(key: (g: GroupRecord) => string | number): SortedIndex<GroupRecord> {
  const compare = (a: GroupRecord, b: GroupRecord): number => {
    const ka = key(a);
    const kb = key(b);
    return ka < kb ? -1 : ka > kb ? 1 : byGuid(a, b);
  };
  const text = (g: GroupRecord) => {
    const k = key(g);
    return typeof k === "number" ? String(k).padStart(16, "0") : k;
  };
  return new SortedIndex(compare, (g) => `${text(g)}\u0000${g.guid}`);
}
/** The time list cursors (`updatedAt` + `affix`) compare against. */
export const touchedAt = (g: GroupRecord): number => g.updatedAt ?? g.createdAt;

/** One group's people: members in join order, banned users in ban order. */
export interface Membership {
  readonly members: Map<string, MemberRecord>;
  readonly bans: Map<string, BanRecord>;
}

/** What happened to one group's members and bans, in order (by uid). */
export interface PeopleNotes {
  members: ListChange<string, MemberRecord>[];
  bans: ListChange<string, BanRecord>[];
}

/**
 * The groups of one app with every index their endpoints read: sorted orders for each `sortBy`, type and tag
 * sets, the members and bans of each group, and each user's groups. Only this class changes them, so the
 * indexes cannot drift from the records.
 */
export class Groups {
  private readonly byId = new Map<string, GroupRecord>();
  private readonly people = new Map<string, Membership>();
  /** Per user, the groups they are a member of (guid -> their membership). */
  private readonly userGroups = new Map<string, Map<string, MemberRecord>>();
  /** Per user, the groups that banned them. */
  private readonly userBans = new Map<string, Set<string>>();
  readonly sorted: Record<GroupSort, SortedIndex<GroupRecord>> = {
    name: byKey((g) => lower(g.name)),
    guid: new SortedIndex(byGuid, (g) => g.guid),
    createdAt: byKey((g) => g.createdAt),
  };
  readonly byTouched = byKey(touchedAt);
  readonly byType = new Map<GroupType, Set<GroupRecord>>();
  readonly byTag = new Map<string, Set<GroupRecord>>();
  /** The groups created, changed or deleted since the change log last looked. */
  readonly notes = new Noting<GroupRecord>();
  /**
   * The members and bans added, changed or removed since the change log last looked, by group: a membership
   * change is logged alone, not with the whole group (set by the change tracker).
   */
  peopleNoted: Map<string, PeopleNotes> | undefined;
  /** The groups created since the change log last looked: logged with their members and bans (set by the change tracker). */
  bornNoted: Set<GroupRecord> | undefined;
  /** Told of every member who joins or leaves a group (the conversation index follows memberships). */
  onMembership?: (guid: string, uid: string) => void;

  load(groups: GroupData[]): void {
    this.byId.clear();
    this.people.clear();
    this.userGroups.clear();
    this.userBans.clear();
    this.byType.clear();
    this.byTag.clear();
    const records: GroupRecord[] = [];
    for (const data of groups) {
      const { members, bannedUsers, ...group } = data;
      records.push(group);
      this.byId.set(group.guid, group);
      this.people.set(group.guid, { members: new Map(), bans: new Map() });
      this.indexAttributes(group);
      for (const m of members) this.addMember(group.guid, { ...m });
      for (const b of bannedUsers) this.addBan(group.guid, { ...b });
    }
    for (const index of this.indexes()) index.reset(records, groups);
    this.notes.reload();
    this.peopleNoted?.clear();
    this.bornNoted?.clear();
  }

  /** Remembers the index orders for `copy`, a copy of `toData()` taken now (snapshots). */
  remember(copy: GroupData[]): void {
    const live = [...this.byId.values()];
    for (const index of this.indexes()) index.remember(copy, live);
  }

  private indexes(): SortedIndex<GroupRecord>[] {
    return [...Object.values(this.sorted), this.byTouched];
  }

  /** Live references in file form: serialize or clone, never mutate. */
  toData(): GroupData[] {
    const out: GroupData[] = [];
    for (const g of this.byId.values()) out.push(this.dataOf(g));
    return out;
  }

  /** One group in file form, with its members and bans (live references). */
  dataOf(g: GroupRecord): GroupData {
    const p = this.people.get(g.guid)!;
    return { ...g, members: [...p.members.values()], bannedUsers: [...p.bans.values()] };
  }

  /** A member's record was changed in place (the change log then takes it). */
  touchMember(guid: string, uid: string): void {
    const member = this.member(guid, uid);
    if (member) this.notePerson(guid, "members", [uid, member]);
  }

  private notePerson<K extends keyof PeopleNotes>(guid: string, kind: K, change: PeopleNotes[K][number]): void {
    if (!this.peopleNoted) return;
    let notes = this.peopleNoted.get(guid);
    if (!notes) this.peopleNoted.set(guid, (notes = { members: [], bans: [] }));
    (notes[kind] as PeopleNotes[K][number][]).push(change);
  }

  get size(): number {
    return this.byId.size;
  }

  get(guid: string): GroupRecord | undefined {
    return this.byId.get(guid);
  }

  add(group: GroupRecord): void {
    this.byId.set(group.guid, group);
    this.people.set(group.guid, { members: new Map(), bans: new Map() });
    for (const index of this.indexes()) index.insert(group);
    this.indexAttributes(group);
    this.notes.put(group);
    this.bornNoted?.add(group);
  }

  /** Applies `change` to a group, keeping every index in step. */
  update(group: GroupRecord, change: (g: GroupRecord) => void): void {
    this.sorted.name.remove(group);
    this.byTouched.remove(group);
    this.unindexAttributes(group);
    change(group);
    this.sorted.name.insert(group);
    this.byTouched.insert(group);
    this.indexAttributes(group);
    this.notes.put(group);
  }

  delete(group: GroupRecord): void {
    const p = this.people.get(group.guid)!;
    for (const uid of [...p.members.keys()]) this.removeMember(group.guid, uid);
    for (const uid of [...p.bans.keys()]) this.removeBan(group.guid, uid);
    for (const index of this.indexes()) index.remove(group);
    this.unindexAttributes(group);
    this.people.delete(group.guid);
    this.byId.delete(group.guid);
    this.notes.remove(group, 0, group.guid);
  }

  // ---- members ----

  membership(guid: string): Membership {
    return this.people.get(guid)!;
  }

  member(guid: string, uid: string): MemberRecord | undefined {
    return this.people.get(guid)?.members.get(uid);
  }

  membersCount(guid: string): number {
    return this.people.get(guid)?.members.size ?? 0;
  }

  /** The groups `uid` is a member of, guid -> membership. */
  groupsOf(uid: string): ReadonlyMap<string, MemberRecord> {
    return this.userGroups.get(uid) ?? new Map();
  }

  addMember(guid: string, member: MemberRecord): void {
    this.people.get(guid)!.members.set(member.uid, member);
    let mine = this.userGroups.get(member.uid);
    if (!mine) this.userGroups.set(member.uid, (mine = new Map()));
    mine.set(guid, member);
    this.notePerson(guid, "members", [member.uid, member]);
    this.onMembership?.(guid, member.uid);
  }

  removeMember(guid: string, uid: string): void {
    this.people.get(guid)?.members.delete(uid);
    const mine = this.userGroups.get(uid);
    mine?.delete(guid);
    if (mine?.size === 0) this.userGroups.delete(uid);
    this.notePerson(guid, "members", [uid, null]);
    this.onMembership?.(guid, uid);
  }

  // ---- bans ----

  ban(guid: string, uid: string): BanRecord | undefined {
    return this.people.get(guid)?.bans.get(uid);
  }

  addBan(guid: string, ban: BanRecord): void {
    this.people.get(guid)!.bans.set(ban.uid, ban);
    addTo(this.userBans, ban.uid, guid);
    this.notePerson(guid, "bans", [ban.uid, ban]);
  }

  removeBan(guid: string, uid: string): void {
    this.people.get(guid)?.bans.delete(uid);
    removeFrom(this.userBans, uid, guid);
    this.notePerson(guid, "bans", [uid, null]);
  }

  /** A deleted user leaves every group and ban list (quietly: there is nobody left to tell). */
  forgetUser(uid: string): void {
    for (const guid of [...this.groupsOf(uid).keys()]) this.removeMember(guid, uid);
    for (const guid of [...(this.userBans.get(uid) ?? [])]) this.removeBan(guid, uid);
  }

  private indexAttributes(g: GroupRecord): void {
    addTo(this.byType, g.type, g);
    for (const t of g.tags) addTo(this.byTag, t, g);
  }

  private unindexAttributes(g: GroupRecord): void {
    removeFrom(this.byType, g.type, g);
    for (const t of g.tags) removeFrom(this.byTag, t, g);
  }
}
