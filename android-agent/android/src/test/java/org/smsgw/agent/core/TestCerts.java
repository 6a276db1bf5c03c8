package org.smsgw.agent.core;

import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocketFactory;

/** Self-signed server certificates made with the JDK's keytool, for the TLS tests. */
final class TestCerts {
    final String pem;
    final SSLContext serverContext;

    private TestCerts(String pem, SSLContext serverContext) {
        this.pem = pem;
        this.serverContext = serverContext;
    }

    static TestCerts make(File dir, String name, String san) throws Exception {
        File store = new File(dir, name + ".p12");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=" + name,
                "-ext", "san=" + san, "-validity", "2", "-keystore", store.getPath(), "-storetype", "PKCS12",
                "-storepass", "changeit", "-keypass", "changeit");
        File pem = new File(dir, name + ".pem");
        keytool("-exportcert", "-rfc", "-alias", "server", "-keystore", store.getPath(), "-storepass", "changeit",
                "-file", pem.getPath());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        InputStream in = new FileInputStream(store);
        try {
            ks.load(in, "changeit".toCharArray());
        } finally {
            in.close();
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, null);
        return new TestCerts(new String(Files.readAllBytes(pem.toPath()), "US-ASCII"), context);
    }

    SSLServerSocketFactory serverSockets() {
        return serverContext.getServerSocketFactory();
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<String>();
        command.add(new File(System.getProperty("java.home"), "bin/keytool").getPath());
        command.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = readAll(p.getInputStream());
        if (p.waitFor() != 0) throw new IllegalStateException("keytool failed: " + new String(out, "UTF-8"));
    }

    private static byte[] readAll(InputStream in) throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] b = new byte[4096];
        for (int n = in.read(b); n >= 0; n = in.read(b)) out.write(b, 0, n);
        return out.toByteArray();
    }
}
