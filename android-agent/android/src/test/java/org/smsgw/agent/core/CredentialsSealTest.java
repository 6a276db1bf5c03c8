package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import org.junit.Test;

/** The credentials sealed under a key of the phone (an Android Keystore key there, an AES key here). */
public class CredentialsSealTest {
    private static final Credentials PAIRED = new Credentials("https://hub.example.com", "device_1", "dtk_secret", "wss://hub.example.com/v1/agent");

    private static SecretKey key() throws Exception {
        KeyGenerator generator = KeyGenerator.getInstance("AES");
        generator.init(256);
        return generator.generateKey();
    }

    @Test
    public void whenCredentialsAreSealedThenTheStoredTextHoldsNoTokenAndTheKeyOpensIt() throws Exception {
        SecretKey key = key();
        String stored = CredentialsSeal.seal(key, PAIRED);
        assertTrue(stored.startsWith("v1:"));
        assertFalse(stored.contains("dtk_secret"));
        assertFalse(stored.contains("hub.example.com"));
        CredentialsSeal.Opened opened = CredentialsSeal.open(key, stored);
        assertEquals(PAIRED.toJson(), opened.credentials.toJson());
        assertFalse(opened.wasClear);
        // Each sealing has its own IV.
        assertFalse(stored.equals(CredentialsSeal.seal(key, PAIRED)));
    }

    @Test
    public void whenTheStoredTextComesToAnotherPhoneOrIsChangedThenNothingOpensAndThePhonePairsAgain() throws Exception {
        String stored = CredentialsSeal.seal(key(), PAIRED);
        // A device transfer or a backup copies the text, never the Keystore key: another key opens nothing.
        assertNull(CredentialsSeal.open(key(), stored));
        SecretKey key = key();
        String sealed = CredentialsSeal.seal(key, PAIRED);
        char last = sealed.charAt(sealed.length() - 3);
        String changed = sealed.substring(0, sealed.length() - 3) + (last == 'A' ? 'B' : 'A') + sealed.substring(sealed.length() - 2);
        assertNull(CredentialsSeal.open(key, changed));
        assertNull(CredentialsSeal.open(key, "v1:not:base64!"));
        assertNull(CredentialsSeal.open(key, "v1:only-one-part"));
        assertNull(CredentialsSeal.open(null, sealed));
        assertNull(CredentialsSeal.open(key, null));
    }

    @Test
    public void whenCredentialsWereStoredInClearByTheAppOfBeforeThenTheyAreReadOnceToBeSealed() throws Exception {
        CredentialsSeal.Opened opened = CredentialsSeal.open(key(), PAIRED.toJson());
        assertEquals("dtk_secret", opened.credentials.deviceToken);
        assertTrue(opened.wasClear);
        assertNull(CredentialsSeal.open(key(), "{\"not\":\"credentials\"}"));
    }

    @Test
    public void whenBase64IsDecodedThenItIsTheInverseOfItsEncoding() {
        for (int n = 0; n < 40; n++) {
            byte[] data = new byte[n];
            for (int i = 0; i < n; i++) data[i] = (byte) (i * 37 + n);
            assertEquals(java.util.Arrays.toString(data), java.util.Arrays.toString(Base64.decode(Base64.encode(data))));
        }
    }
}
