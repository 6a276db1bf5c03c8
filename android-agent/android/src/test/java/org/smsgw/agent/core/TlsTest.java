package org.smsgw.agent.core;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.security.cert.X509Certificate;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TlsTest {
    @ClassRule
    public static TemporaryFolder folder = new TemporaryFolder();

    static X509Certificate cert;

    @BeforeClass
    public static void make() throws Exception {
        TestCerts c = TestCerts.make(folder.getRoot(), "hub", "dns:hub.example.test,dns:*.apps.example.test,ip:127.0.0.1,ip:::1");
        cert = (X509Certificate) Tls.parseCertificates(c.pem).iterator().next();
    }

    @Test
    public void whenTheHostIsANameThenOnlyTheCertificatesNamesMatchWithOneWildcardLabel() {
        assertTrue(Tls.matches("hub.example.test", cert));
        assertTrue(Tls.matches("HUB.Example.Test.", cert));
        assertTrue(Tls.matches("a.apps.example.test", cert));
        assertFalse(Tls.matches("b.a.apps.example.test", cert));
        assertFalse(Tls.matches("apps.example.test", cert));
        assertFalse(Tls.matches("example.test", cert));
        assertFalse(Tls.matches("evil-hub.example.test", cert));
    }

    @Test
    public void whenTheHostIsAnAddressThenOnlyTheCertificatesAddressesMatch() {
        assertTrue(Tls.matches("127.0.0.1", cert));
        assertTrue(Tls.matches("[::1]", cert));
        assertTrue(Tls.matches("0:0:0:0:0:0:0:1", cert));
        assertFalse(Tls.matches("127.0.0.2", cert));
    }
}
