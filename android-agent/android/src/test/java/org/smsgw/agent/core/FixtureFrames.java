package org.smsgw.agent.core;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The frames of a protocol fixture compared with what the agent sent, and the values the agent
 * chose bound for later frames (the placeholders of android-agent/fixtures/README.md).
 */
final class FixtureFrames {
    private final String driver;
    private final Map<String, String> bound = new HashMap<String, String>();
    /** Protocol 8: what {@code <envelope>} must open to with the phone's passphrase (the step's received text); null otherwise. */
    private String passphrase;
    private String sealedText;

    FixtureFrames(String driver) {
        this.driver = driver;
    }

    /** The step's received SMS, for {@code <envelope>}; null: no envelope is expected. */
    void sealed(String passphrase, String text) {
        this.passphrase = passphrase;
        this.sealedText = text;
    }

    /** The fixture's placeholders, as fixtures/README.md defines them. */
    boolean matches(Object expected, Object actual) throws Exception {
        if (expected instanceof String) {
            String e = (String) expected;
            if (!(e.startsWith("<") && e.endsWith(">"))) return e.equals(actual);
            if (!(actual instanceof String)) return false;
            String a = (String) actual;
            String inner = e.substring(1, e.length() - 1);
            if (inner.equals("time")) return a.matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})");
            if (inner.equals("string")) return !a.isEmpty();
            if (inner.equals("driver")) return a.equals(driver);
            if (inner.equals("envelope")) return opensTo(a);
            if (inner.startsWith("uuid")) {
                if (!a.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")) return false;
                if (inner.startsWith("uuid:")) bound.put(inner.substring(5), a);
                return true;
            }
            return a.equals(bound.get(inner));
        }
        if (expected instanceof JSONArray) {
            if (!(actual instanceof JSONArray)) return false;
            JSONArray e = (JSONArray) expected;
            JSONArray a = (JSONArray) actual;
            if (e.length() != a.length()) return false;
            for (int i = 0; i < e.length(); i++) {
                if (!matches(e.get(i), a.get(i))) return false;
            }
            return true;
        }
        if (expected instanceof JSONObject) {
            if (!(actual instanceof JSONObject)) return false;
            JSONObject e = (JSONObject) expected;
            JSONObject a = (JSONObject) actual;
            if (e.length() != a.length()) return false;
            for (Iterator<String> keys = e.keys(); keys.hasNext();) {
                String key = keys.next();
                if (!a.has(key) || !matches(e.get(key), a.get(key))) return false;
            }
            return true;
        }
        if (expected instanceof Number && actual instanceof Number) {
            return ((Number) expected).doubleValue() == ((Number) actual).doubleValue();
        }
        return expected.equals(actual);
    }

    private boolean opensTo(String envelope) {
        if (passphrase == null || !Envelope.isEnvelope(envelope)) return false;
        try {
            return Envelope.open(envelope, passphrase).equals(sealedText);
        } catch (Envelope.DecryptionFailedException e) {
            return false;
        }
    }

    /** A hub frame with the values bound so far in place of their {@code <name>}. */
    JSONObject substitute(JSONObject frame) throws Exception {
        JSONObject out = new JSONObject();
        for (Iterator<String> keys = frame.keys(); keys.hasNext();) {
            String key = keys.next();
            Object value = frame.get(key);
            if (value instanceof String && ((String) value).startsWith("<") && ((String) value).endsWith(">")) {
                String name = ((String) value).substring(1, ((String) value).length() - 1);
                if (!bound.containsKey(name)) throw new IllegalStateException(value + " is not bound by an earlier <uuid:" + name + ">");
                value = bound.get(name);
            }
            out.put(key, value);
        }
        return out;
    }
}
