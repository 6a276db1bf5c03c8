'use strict';
/**
 * Whom each Postgres process of the run works for, so that Postgres's CPU is counted by service:
 * a connection's backend by its `application_name` (every service names its pool after itself),
 * the server's own processes (WAL writer, checkpointer, autovacuum, the postmaster) as
 * `background`, and any other connection (the benchmark's own counts and account) as `bench`.
 *
 * A pool closes a connection idle for 10 s and opens another later, so backends come and go: the
 * roles are read every second and kept for every pid seen. A backend that came and went between
 * two reads counts as `background`.
 */
class PostgresRoles {
  /**
   * @param {import('pg').Pool} db any connection to the server (pg_stat_activity is the whole server's)
   * @param {string[]} services the names the services give their connections
   */
  constructor(db, services) {
    this.db = db;
    this.services = new Set(services);
    /** @type {Map<number, string>} */
    this.roles = new Map();
    this.timer = undefined;
  }

  /** Reads the roles now, then every `everyMs`. */
  async start(everyMs = 1000) {
    await this.read();
    this.timer = setInterval(() => this.read().catch(() => undefined), everyMs);
  }

  stop() {
    clearInterval(this.timer);
  }

  async read() {
    const { rows } = await this.db.query('SELECT pid, backend_type, application_name FROM pg_stat_activity');
    for (const r of rows) {
      const role =
        r.backend_type !== 'client backend' ? 'background' : this.services.has(r.application_name) ? r.application_name : 'bench';
      this.roles.set(r.pid, role);
    }
  }

  /** @param {number} pid */
  roleOf(pid) {
    return this.roles.get(pid) ?? 'background';
  }
}

module.exports = { PostgresRoles };
