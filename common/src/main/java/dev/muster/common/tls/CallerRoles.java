package dev.muster.common.tls;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Who a client is, by the certificate it presented: each of Muster's callers has its own certificate identity, its
 * subject common name (CN), and each entry point serves only its own callers' roles. Given by a flag such as
 * {@code --tls-client-roles=scheduler=muster-scheduler,extender=muster-extender.muster-system.svc,controller=muster-controller,operator=muster-operator}.
 *
 * <p>Only certificates the client CA signed ever get here (the TLS handshake refuses others); this decides which of
 * those may do what. {@link #ANY} (no flag): every such certificate has every role — for setups that issue one
 * certificate to all; the chart always gives the flag. Immutable; thread-safe.
 */
public final class CallerRoles {
    /** What a caller is. */
    public enum Role {
        /** kube-scheduler: the extender verbs. */
        SCHEDULER,
        /** Another extender replica: forwards verbs to the leader. */
        EXTENDER,
        /** The controller: the allocation stream. */
        CONTROLLER,
        /** A person or tool: the dry run and the read-only Queues API. */
        OPERATOR;

        String flagName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Every certificate the CA signed has every role. */
    public static final CallerRoles ANY = new CallerRoles(null);

    /** Common name → its roles; null for {@link #ANY}. */
    private final Map<String, Set<Role>> byName;

    private CallerRoles(Map<String, Set<Role>> byName) {
        this.byName = byName;
    }

    /**
     * Parses {@code role=CN,role=CN,...} (a role may be given more than once, and one CN may have several roles).
     * Blank: {@link #ANY}.
     *
     * @throws IllegalArgumentException naming the flag and the bad entry
     */
    public static CallerRoles parse(String flag, String text) {
        if (text == null || text.isBlank()) {
            return ANY;
        }
        Map<String, Set<Role>> byName = new LinkedHashMap<>();
        for (String part : text.split(",", -1)) {
            int eq = part.indexOf('=');
            String role = eq < 0 ? "" : part.substring(0, eq).strip();
            String name = eq < 0 ? "" : part.substring(eq + 1).strip();
            Role r = null;
            for (Role candidate : Role.values()) {
                if (candidate.flagName().equals(role)) {
                    r = candidate;
                }
            }
            if (r == null || name.isEmpty()) {
                throw new IllegalArgumentException("--" + flag + ": \"" + part.strip() + "\" is not role=certificate-common-name with role one of "
                        + "scheduler, extender, controller, operator");
            }
            byName.computeIfAbsent(name, n -> EnumSet.noneOf(Role.class)).add(r);
        }
        Map<String, Set<Role>> frozen = new LinkedHashMap<>();
        byName.forEach((n, roles) -> frozen.put(n, Set.copyOf(roles)));
        return new CallerRoles(Map.copyOf(frozen));
    }

    /** True for {@link #ANY}. */
    public boolean anyCertificate() {
        return byName == null;
    }

    /** The roles of the client certificate {@code cert} (null: no certificate, no role). */
    public Set<Role> of(X509Certificate cert) {
        if (cert == null) {
            return Set.of();
        }
        if (byName == null) {
            return EnumSet.allOf(Role.class);
        }
        return byName.getOrDefault(commonName(cert), Set.of());
    }

    /** The roles of the client that made {@code session} (none without a client certificate). */
    public Set<Role> of(SSLSession session) {
        return of(peer(session));
    }

    /** Whether the client certificate has one of {@code allowed}. */
    public boolean allows(X509Certificate cert, Set<Role> allowed) {
        Set<Role> roles = of(cert);
        for (Role r : allowed) {
            if (roles.contains(r)) {
                return true;
            }
        }
        return false;
    }

    /** The client's certificate in {@code session}, or null (none, or no TLS). */
    public static X509Certificate peer(SSLSession session) {
        if (session == null) {
            return null;
        }
        try {
            Certificate[] chain = session.getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
        } catch (SSLPeerUnverifiedException none) {
            return null;
        }
    }

    /** The certificate's subject common name, or "" when it has none; for messages and matching. */
    public static String commonName(X509Certificate cert) {
        try {
            for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return String.valueOf(rdn.getValue());
                }
            }
        } catch (InvalidNameException e) {
            return "";
        }
        return "";
    }

    /** For a refusal: who the caller is, and which roles the entry point wants. */
    public String describe(X509Certificate cert, Set<Role> wanted) {
        String who = cert == null ? "a client without a certificate" : "the certificate \"" + commonName(cert) + "\" (roles " + of(cert) + ")";
        return who + " may not call this; it serves only " + wanted + " (--tls-client-roles)";
    }

    @Override
    public String toString() {
        if (byName == null) {
            return "any certificate of the client CA";
        }
        Map<Role, java.util.List<String>> byRole = new EnumMap<>(Role.class);
        byName.forEach((n, roles) -> roles.forEach(r -> byRole.computeIfAbsent(r, x -> new java.util.ArrayList<>()).add(n)));
        return byRole.toString();
    }
}
