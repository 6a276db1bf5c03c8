package org.smsgw.agent.core;

import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.Charset;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * TLS to the hub: the system's CAs, plus an optional CA certificate for a self-hosted hub, and a
 * host name check of our own (an SSLSocket checks none by itself, and the API 23 way to ask it,
 * endpoint identification, came with API 24).
 */
public final class Tls {
    /** As long as the hub honours a session (its TLS_SESSION_TIMEOUT_S), the longest TLS 1.3 allows. */
    static final int SESSION_TIMEOUT_S = 7 * 24 * 3600;

    private final SSLSocketFactory socketFactory;

    private Tls(SSLSocketFactory socketFactory) {
        this.socketFactory = socketFactory;
    }

    /** {@code extraCaPem}: PEM (or DER) certificates trusted besides the system's; null for none. */
    public static Tls create(String extraCaPem) throws GeneralSecurityException {
        X509TrustManager system = defaultTrustManager(null);
        X509TrustManager trust = system;
        if (extraCaPem != null && !extraCaPem.trim().isEmpty()) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            try {
                store.load(null, null);
            } catch (java.io.IOException e) {
                throw new GeneralSecurityException(e);
            }
            int n = 0;
            for (Certificate c : parseCertificates(extraCaPem)) store.setCertificateEntry("extra-" + n++, c);
            trust = new EitherTrustManager(system, defaultTrustManager(store));
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {trust}, null);
        // Reconnections resume the hub's TLS session (no certificate signature for the hub to make)
        // only through this one context's session cache: one Tls per agent, never one per connection.
        // A phone stays connected for days; the cache's default (a day on the JDK, less on
        // Android) would forget its session before the hub does.
        SSLSessionContext sessions = context.getClientSessionContext();
        if (sessions != null) sessions.setSessionTimeout(SESSION_TIMEOUT_S);
        return new Tls(context.getSocketFactory());
    }

    /** The certificates of a PEM or DER text; refuses one that holds none. */
    public static Collection<? extends Certificate> parseCertificates(String pem) throws CertificateException {
        Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(pem.trim().getBytes(Charset.forName("US-ASCII"))));
        if (certs.isEmpty()) throw new CertificateException("no certificate in the CA file");
        return certs;
    }

    public SSLSocketFactory socketFactory() {
        return socketFactory;
    }

    public HostnameVerifier hostnameVerifier() {
        return new HostnameVerifier() {
            @Override
            public boolean verify(String host, SSLSession session) {
                try {
                    checkHostname(host, session);
                    return true;
                } catch (SSLPeerUnverifiedException e) {
                    return false;
                }
            }
        };
    }

    public static void checkHostname(String host, SSLSession session) throws SSLPeerUnverifiedException {
        Certificate[] chain = session.getPeerCertificates();
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate) || !matches(host, (X509Certificate) chain[0])) {
            throw new SSLPeerUnverifiedException("the hub's certificate is not for " + host);
        }
    }

    /**
     * RFC 6125 without the deprecated common-name fallback: an IP address must be an IP entry of
     * the subject alternative names, a name a DNS entry, with one wildcard label at most, leftmost.
     */
    public static boolean matches(String host, X509Certificate cert) {
        Collection<List<?>> names;
        try {
            names = cert.getSubjectAlternativeNames();
        } catch (CertificateException e) {
            return false;
        }
        if (names == null) return false;
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        byte[] ip = ipLiteral(h);
        for (List<?> entry : names) {
            int type = ((Integer) entry.get(0)).intValue();
            String value = String.valueOf(entry.get(1));
            if (ip != null && type == 7) {
                byte[] other = ipLiteral(value);
                if (other != null && Arrays.equals(ip, other)) return true;
            } else if (ip == null && type == 2 && dnsMatches(h.toLowerCase(Locale.ROOT), value.toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    private static boolean dnsMatches(String host, String pattern) {
        String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        String p = pattern.endsWith(".") ? pattern.substring(0, pattern.length() - 1) : pattern;
        if (!p.startsWith("*.")) return h.equals(p);
        String suffix = p.substring(1); // ".example.com"
        if (suffix.indexOf('.', 1) < 0) return false; // "*.com" is too wide
        int dot = h.indexOf('.');
        return dot > 0 && h.substring(dot).equals(suffix);
    }

    /** The address bytes of an IPv4 or IPv6 literal; null for a name (never resolved here). */
    static byte[] ipLiteral(String s) {
        boolean v4 = s.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = s.indexOf(':') >= 0 && s.matches("[0-9a-fA-F:.]+");
        if (!v4 && !v6) return null;
        try {
            return InetAddress.getByName(s).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static X509TrustManager defaultTrustManager(KeyStore store) throws GeneralSecurityException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        for (TrustManager m : factory.getTrustManagers()) {
            if (m instanceof X509TrustManager) return (X509TrustManager) m;
        }
        throw new GeneralSecurityException("no X509TrustManager");
    }

    /** Trusts a chain that either the system's CAs or the extra CA trusts. */
    private static final class EitherTrustManager implements X509TrustManager {
        private final X509TrustManager first;
        private final X509TrustManager second;

        EitherTrustManager(X509TrustManager first, X509TrustManager second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            first.checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            try {
                first.checkServerTrusted(chain, authType);
            } catch (CertificateException e) {
                second.checkServerTrusted(chain, authType);
            }
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            X509Certificate[] a = first.getAcceptedIssuers();
            X509Certificate[] b = second.getAcceptedIssuers();
            X509Certificate[] all = Arrays.copyOf(a, a.length + b.length);
            System.arraycopy(b, 0, all, a.length, b.length);
            return all;
        }
    }
}
