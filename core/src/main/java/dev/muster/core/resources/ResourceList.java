package dev.muster.core.resources;

import java.util.HashSet;
import java.util.Set;

/**
 * The one reader of a resource list ({@code name: quantity}) from any input — the HTTP wire, gRPC, informer
 * objects, Volcano CRDs. Names must be Kubernetes qualified names ({@code cpu}, {@code nvidia.com/gpu}), each at
 * most once; quantities must parse and must not be negative. Problems throw {@link InvalidQuantityException}
 * with a message naming the problem; callers add where the list was, resource name included (the wire's path
 * {@code Pod.spec.containers[0].resources.requests.cpu}, or {@code node n1 status.allocatable: cpu}).
 *
 * <p>Cluster objects (nodes, pods seen by informers, queues) {@link Names#REGISTER register} new resource names;
 * request input ({@link Names#KNOWN_ONLY}) does not: a name nothing in the cluster has is counted under
 * {@link ResourceNames#UNKNOWN}, which no node offers, so the request fits nowhere and the registry stays bounded.
 * <p>{@link ResourceNames#GANG_MARKER} is no resource: the chart's admission policy adds it to gang members so
 * that kube-scheduler binds them through Muster (its bind extender's {@code managedResources}). It is never counted,
 * only noted ({@link #marked()}), so a marked pod fits where it would fit without it.
 * Not thread-safe: one instance per list being read.
 */
public final class ResourceList {
    /** Whether unseen resource names are registered (cluster objects) or counted as unknown (request input). */
    public enum Names { REGISTER, KNOWN_ONLY }

    private final Names names;
    private final String noun;
    private final Set<String> seen = new HashSet<>(8);
    private Resources.Builder amounts;
    private boolean marked;

    /** @param noun what the amounts are, for messages ("requests", "overhead", "capability") */
    public ResourceList(Names names, String noun) {
        this.names = names;
        this.noun = noun;
    }

    /** Adds {@code name: quantity} (a Kubernetes quantity such as {@code 500m}, {@code 4Gi}, {@code 2}). */
    public ResourceList put(String name, String quantity) {
        checkName(name);
        if (quantity == null) {
            throw new InvalidQuantityException("has no quantity");
        }
        long amount = Quantities.parse(name, quantity);
        if (amount < 0 || isNegative(quantity)) {
            throw new InvalidQuantityException(noun + " must not be negative, got \"" + abbreviate(quantity.trim()) + "\"");
        }
        return add(name, amount);
    }

    /** A name listed without a quantity (JSON null): checked and counted as listed, but adds nothing. */
    public ResourceList putNothing(String name) {
        checkName(name);
        marked |= ResourceNames.GANG_MARKER.equals(name);
        return this;
    }

    /** Adds an amount already in muster's units (gRPC lists carry whole numbers). */
    public ResourceList putAmount(String name, long amount) {
        checkName(name);
        if (amount < 0) {
            throw new InvalidQuantityException(noun + " must not be negative, got " + amount);
        }
        return add(name, amount);
    }

    private ResourceList add(String name, long amount) {
        if (ResourceNames.GANG_MARKER.equals(name)) {
            marked = true;
            return this;
        }
        if (amounts == null) {
            amounts = Resources.builder();
        }
        int index = names == Names.REGISTER ? ResourceNames.indexOf(name) : ResourceNames.knownOrUnknown(name);
        amounts.add(index, amount);
        return this;
    }

    private void checkName(String name) {
        if (name == null || !isQualifiedName(name)) {
            throw new InvalidQuantityException("invalid resource name \"" + abbreviate(String.valueOf(name))
                    + "\" (expected a qualified name such as cpu or nvidia.com/gpu)");
        }
        if (!seen.add(name)) {
            throw new InvalidQuantityException("duplicate key \"" + abbreviate(name) + "\"");
        }
    }

    /** Whether the list named {@link ResourceNames#GANG_MARKER} (which {@link #build()} leaves out). */
    public boolean marked() {
        return marked;
    }

    public Resources build() {
        return amounts == null ? Resources.ZERO : amounts.build();
    }

    /** A leading minus with any non-zero digit before the suffix ("-1m", but not "-0"). */
    private static boolean isNegative(String text) {
        String s = text.trim();
        if (s.isEmpty() || s.charAt(0) != '-') {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= '1' && c <= '9') {
                return true;
            }
            if (c != '0' && c != '.') {
                return false;
            }
        }
        return false;
    }

    /** Shortens {@code s} for an error message. */
    public static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }

    /** Kubernetes {@code IsQualifiedName}: an optional DNS-1123 subdomain prefix and "/", then a name of at most 63 characters. */
    public static boolean isQualifiedName(String s) {
        int slash = s.indexOf('/');
        if (slash < 0) {
            return isName(s, 0, s.length());
        }
        if (s.indexOf('/', slash + 1) >= 0) {
            return false;
        }
        return isSubdomain(s, 0, slash) && isName(s, slash + 1, s.length());
    }

    private static boolean isName(String s, int from, int to) {
        int n = to - from;
        if (n < 1 || n > 63 || !isAlnum(s.charAt(from)) || !isAlnum(s.charAt(to - 1))) {
            return false;
        }
        for (int i = from + 1; i < to - 1; i++) {
            char c = s.charAt(i);
            if (!isAlnum(c) && c != '-' && c != '_' && c != '.') {
                return false;
            }
        }
        return true;
    }

    private static boolean isSubdomain(String s, int from, int to) {
        int n = to - from;
        if (n < 1 || n > 253) {
            return false;
        }
        char previous = '.';
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            boolean lowerAlnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (c == '.') {
                if (previous == '.' || previous == '-') {
                    return false;
                }
            } else if (c == '-') {
                if (previous == '.') {
                    return false;
                }
            } else if (!lowerAlnum) {
                return false;
            }
            previous = c;
        }
        return previous != '.' && previous != '-';
    }

    private static boolean isAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
}
