package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.HashMap;
import java.util.Map;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import org.junit.Test;

/** The owner's passphrase kept on the phone, sealed under a key of the phone (an Android Keystore key there, an AES key here). */
public class PassphraseStoreTest {
    private final Map<String, String> saved = new HashMap<String, String>();
    private final PassphraseStore.Prefs prefs = new PassphraseStore.Prefs() {
        @Override
        public String get(String name) {
            return saved.get(name);
        }

        @Override
        public void put(String name, String value) {
            saved.put(name, value);
        }

        @Override
        public void remove(String name) {
            saved.remove(name);
        }
    };

    private static PassphraseStore.Keys keys(final SecretKey key) {
        return new PassphraseStore.Keys() {
            @Override
            public SecretKey key() {
                return key;
            }
        };
    }

    private static SecretKey key() throws Exception {
        KeyGenerator generator = KeyGenerator.getInstance("AES");
        generator.init(256);
        return generator.generateKey();
    }

    @Test
    public void whenThePassphraseIsSavedThenItOpensAsTypedAndTheStoredTextDoesNotHoldIt() throws Exception {
        PassphraseStore store = new PassphraseStore(prefs, keys(key()));
        assertFalse(store.isSet());
        assertNull(store.passphrase());
        store.save(" phrase du propriétaire ");
        assertTrue(store.isSet());
        assertEquals(" phrase du propriétaire ", store.passphrase());
        String stored = saved.get(PassphraseStore.NAME);
        assertTrue(stored.startsWith("v1:"));
        assertFalse(stored.contains("phrase"));
    }

    @Test
    public void whenThePassphraseIsClearedThenNoneIsKept() throws Exception {
        PassphraseStore store = new PassphraseStore(prefs, keys(key()));
        store.save("p");
        store.clear();
        assertFalse(store.isSet());
        assertNull(store.passphrase());
        assertTrue(saved.isEmpty());
    }

    @Test
    public void whenTheStoredTextComesToAnotherPhoneOrIsChangedThenNothingOpens() throws Exception {
        new PassphraseStore(prefs, keys(key())).save("secret");
        // A copy of the preferences without the Keystore key opens nothing: the owner types it again.
        assertNull(new PassphraseStore(prefs, keys(key())).passphrase());
        saved.put(PassphraseStore.NAME, "v1:not:base64!");
        assertNull(new PassphraseStore(prefs, keys(key())).passphrase());
        saved.put(PassphraseStore.NAME, "secret");
        assertNull(new PassphraseStore(prefs, keys(key())).passphrase());
    }

    @Test
    public void whenWhatWasTypedIsEmptyOnSeveralLinesOrTooLongThenTheScreenSaysWhyAndNothingIsSaved() throws Exception {
        assertNotNull(PassphraseStore.problem(""));
        assertNotNull(PassphraseStore.problem(null));
        assertTrue(PassphraseStore.problem("one\ntwo").contains("one line"));
        StringBuilder longOne = new StringBuilder();
        for (int i = 0; i <= PassphraseStore.MAX_CHARACTERS; i++) longOne.append('x');
        assertNotNull(PassphraseStore.problem(longOne.toString()));
        assertNull(PassphraseStore.problem("correct horse battery staple"));
        PassphraseStore store = new PassphraseStore(prefs, keys(key()));
        try {
            store.save("a\r\nb");
            fail("saved a passphrase of two lines");
        } catch (IllegalArgumentException expected) {
            assertFalse(store.isSet());
        }
    }
}
