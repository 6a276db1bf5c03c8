package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.nio.file.Files;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.BeforeClass;
import org.junit.Test;

/** The shared vectors of the end-to-end envelope (packages/e2e-envelope/test-vectors.json). */
public class EnvelopeTest {
    private static JSONObject vectors;

    @BeforeClass
    public static void load() throws Exception {
        File dir = new File(EnvelopeTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        while (dir != null && !new File(dir, "packages/e2e-envelope/test-vectors.json").isFile()) dir = dir.getParentFile();
        if (dir == null) throw new AssertionError("packages/e2e-envelope/test-vectors.json not found above the classes");
        vectors = new JSONObject(new String(Files.readAllBytes(new File(dir, "packages/e2e-envelope/test-vectors.json").toPath()), "UTF-8"));
    }

    @Test
    public void whenEachValidEnvelopeIsOpened_thenItsPlainTextComesBack() throws Exception {
        JSONArray valid = vectors.getJSONArray("valid");
        assertTrue(valid.length() > 0);
        for (int i = 0; i < valid.length(); i++) {
            JSONObject v = valid.getJSONObject(i);
            assertEquals(v.getString("plaintext"), Envelope.open(v.getString("envelope"), v.getString("passphrase")));
        }
    }

    @Test
    public void whenEachTextIsSealedWithTheVectorSaltAndNonce_thenTheVectorEnvelopeComesOut() throws Exception {
        JSONArray valid = vectors.getJSONArray("valid");
        for (int i = 0; i < valid.length(); i++) {
            JSONObject v = valid.getJSONObject(i);
            JSONObject kdf = v.getJSONObject("kdf");
            String sealed = Envelope.seal(v.getString("plaintext"), v.getString("passphrase"), kdf.getInt("ln"), kdf.getInt("r"),
                    kdf.getInt("p"), hex(v.getString("salt")), hex(v.getString("nonce")));
            assertEquals(v.getString("envelope"), sealed);
        }
    }

    @Test
    public void whenEachInvalidEnvelopeIsOpened_thenItFails() throws Exception {
        JSONArray invalid = vectors.getJSONArray("invalid");
        assertTrue(invalid.length() > 0);
        for (int i = 0; i < invalid.length(); i++) {
            JSONObject v = invalid.getJSONObject(i);
            try {
                Envelope.open(v.getString("envelope"), v.getString("passphrase"));
                fail("opened although it has " + v.getString("why"));
            } catch (Envelope.DecryptionFailedException expected) {
                // the outcome the vector asks for
            }
        }
    }

    @Test
    public void whenATextIsSealedTwice_thenTheEnvelopesDifferAndBothOpen() throws Exception {
        String a = Envelope.seal("secret", "pass");
        String b = Envelope.seal("secret", "pass");
        assertNotEquals(a, b);
        assertEquals("secret", Envelope.open(a, "pass"));
        assertEquals("secret", Envelope.open(b, "pass"));
    }

    private static byte[] hex(String text) {
        byte[] out = new byte[text.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
        return out;
    }
}
