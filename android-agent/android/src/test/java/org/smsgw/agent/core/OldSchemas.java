package org.smsgw.agent.core;

/** Schemas of databases that earlier versions of the app created, as they were: the upgrades start from these. */
final class OldSchemas {
    private OldSchemas() {
    }

    /** Version 2's (protocol 2): the outbox, without the inbox. */
    static final String[] VERSION_2 = {
        "CREATE TABLE IF NOT EXISTS outbox_entry ("
            + " message_id TEXT PRIMARY KEY NOT NULL,"
            + " seq INTEGER NOT NULL UNIQUE,"
            + " recipient TEXT NOT NULL,"
            + " body TEXT NOT NULL,"
            + " traceparent TEXT,"
            + " expires_at INTEGER NOT NULL DEFAULT 0,"
            + " state TEXT NOT NULL CHECK (state IN ('accepted', 'sending', 'sent', 'delivered', 'failed')),"
            + " parts INTEGER NOT NULL DEFAULT 0,"
            + " parts_sent TEXT NOT NULL DEFAULT '',"
            + " parts_delivered TEXT NOT NULL DEFAULT '',"
            + " handed_at INTEGER NOT NULL DEFAULT 0,"
            + " handed_boot TEXT,"
            + " delivery_wait_until INTEGER NOT NULL DEFAULT 0,"
            + " accepted_at INTEGER NOT NULL,"
            + " updated_at INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS outbox_report ("
            + " message_id TEXT NOT NULL,"
            + " position INTEGER NOT NULL,"
            + " status TEXT NOT NULL CHECK (status IN ('sent', 'delivered', 'failed')),"
            + " at INTEGER NOT NULL,"
            + " error_code TEXT,"
            + " error_message TEXT,"
            + " not_sent INTEGER NOT NULL DEFAULT 0,"
            + " PRIMARY KEY (message_id, status))",
        "CREATE TABLE IF NOT EXISTS outbox_done (message_id TEXT PRIMARY KEY NOT NULL)",
    };

    /** Version 3's (protocol 3): version 2's and the inbox. */
    static final String[] VERSION_3 = {VERSION_2[0], VERSION_2[1], VERSION_2[2], Inbox.TABLE_V3};
}
