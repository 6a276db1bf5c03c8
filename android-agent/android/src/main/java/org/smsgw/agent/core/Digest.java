package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The {@code digest} frames of the send record (PROTOCOL.md, version 7): its entries in hand-over
 * order, {@link #CHUNK_ENTRIES} a frame, each frame's span of time starting where the previous
 * one ended, the first where the record is complete, the last at {@code now}. An empty record
 * still makes one frame: no SMS was handed over in that span.
 */
public final class Digest {
    public static final int CHUNK_ENTRIES = 200;
    /** How often a connected app sends its digest (also at once after each hello). */
    public static final long INTERVAL_MS = 5L * 60 * 1000;

    private Digest() {
    }

    public static List<String> frames(List<RecordEntry> entries, long coversFrom, long now, int chunkEntries, String digestId) {
        List<List<RecordEntry>> groups = new ArrayList<List<RecordEntry>>();
        for (int i = 0; i < entries.size(); i += chunkEntries) {
            groups.add(entries.subList(i, Math.min(entries.size(), i + chunkEntries)));
        }
        if (groups.isEmpty()) groups.add(new ArrayList<RecordEntry>());
        List<String> frames = new ArrayList<String>();
        long from = coversFrom;
        try {
            for (int i = 0; i < groups.size(); i++) {
                List<RecordEntry> group = groups.get(i);
                long to = i == groups.size() - 1 ? now : group.get(group.size() - 1).acceptedAt;
                JSONArray list = new JSONArray();
                for (RecordEntry e : group) list.put(e.toJson());
                frames.add(new JSONObject()
                        .put("type", "digest")
                        .put("digest_id", digestId)
                        .put("at", Times.rfc3339(now))
                        .put("chunk", i + 1)
                        .put("chunks", groups.size())
                        .put("covers_from", Times.rfc3339(from))
                        .put("covers_to", Times.rfc3339(to))
                        .put("entries", list)
                        .toString());
                from = to;
            }
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        return frames;
    }
}
