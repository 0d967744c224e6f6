// Who is on a board, from the server's messages (docs/protocol.md: welcome, join, leave,
// presence, and the user a dragStart names on a large board). The SDK's client keeps one, and so
// does the page's session (web/session.js): the rule is written once, here. Pure.

export class Roster {
  constructor() {
    /** Who is on the board: user id → {id, name, color, …}. */
    this.users = new Map();
    /** On a large board, how many users in all (`users` names only some of them); else null. */
    this.userCount = null;
  }

  /** Takes a server message in; true when who is here changed (a presence to show). */
  apply(m) {
    switch (m?.type) {
      case 'welcome':
        this.users = new Map((m.users ?? []).filter((u) => u?.id).map((u) => [u.id, u]));
        this.userCount = Number.isInteger(m.userCount) ? m.userCount : null;
        return true;
      case 'dragStart':
        // On a large board a hand names its holder, whom this page may not have been told of.
        if (!m.user?.id || this.users.has(m.user.id)) return false;
        this.users.set(m.user.id, m.user);
        return true;
      case 'join':
        if (m.user?.id) this.users.set(m.user.id, m.user);
        return true;
      case 'leave':
        if (m.user?.id) this.users.delete(m.user.id);
        return true;
      case 'presence':
        if (Array.isArray(m.users)) {
          this.users = new Map(m.users.filter((u) => u?.id).map((u) => [u.id, u]));
          this.userCount = null;
        } else if (Number.isInteger(m.userCount)) {
          this.userCount = m.userCount;
        }
        return true;
      default:
        return false;
    }
  }

  /** A user by id (a placeholder for one who has left). */
  user(id) {
    return this.users.get(id) ?? { id, name: id, color: '#555' };
  }
}
