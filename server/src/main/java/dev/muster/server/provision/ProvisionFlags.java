package dev.muster.server.provision;

import dev.muster.common.config.Flags;
import dev.muster.core.provision.Provisioning;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code --provisioning}, {@code --provisioning-class} and {@code --provisioning-parameters}: whether a gang that needs
 * more nodes than the cluster has asks cluster-autoscaler for all of them at once, and how.
 *
 * @param enabled  {@code --provisioning}
 * @param settings the class and parameters of the requests ({@link Provisioning.Settings})
 */
public record ProvisionFlags(boolean enabled, Provisioning.Settings settings) {
    private static final Pattern QUALIFIED_NAME = Pattern.compile("([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    public static final ProvisionFlags OFF = new ProvisionFlags(false, Provisioning.Settings.atomic());

    /** Adds the flags' descriptions to {@code f}. */
    public static void describe(Map<String, String> f) {
        f.put("provisioning", "true: a gang its queue admits that fits neither the nodes' free room nor by preemption asks a cluster "
                + "autoscaler for all of its pods' room at once through a ProvisioningRequest (autoscaling.x-k8s.io/v1, when served) "
                + "and waits behind Muster's scheduling gate until it is Provisioned (default false)");
        f.put("provisioning-class", "the ProvisioningRequest class (default " + Provisioning.Settings.ATOMIC + ": all of the request's "
                + "pods' room or none)");
        f.put("provisioning-parameters", "the ProvisioningRequest's spec.parameters, as key=value,... (default none), e.g. "
                + "ValidUntilSeconds=3600");
    }

    /** Reads the flags; an error names the flag and what is wrong. */
    public static ProvisionFlags parse(Flags flags) {
        boolean enabled = flags.bool("provisioning", false);
        String cls = flags.string("provisioning-class", Provisioning.Settings.ATOMIC).trim();
        if (cls.isEmpty() || cls.length() > 253) {
            throw new IllegalArgumentException("--provisioning-class must name a class of 1 to 253 characters, got \"" + cls + "\"");
        }
        Map<String, String> params = parameters(flags.string("provisioning-parameters", ""));
        Provisioning.Settings atomic = Provisioning.Settings.atomic();
        return new ProvisionFlags(enabled, new Provisioning.Settings(cls, params, atomic.backoff()));
    }

    static Map<String, String> parameters(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        if (text.isBlank()) {
            return out;
        }
        for (String pair : text.split(",", -1)) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair.trim() : pair.substring(0, eq).trim();
            if (eq < 0 || !QUALIFIED_NAME.matcher(key).matches()) {
                throw new IllegalArgumentException("--provisioning-parameters: \"" + pair + "\" is not key=value with a valid key");
            }
            String value = pair.substring(eq + 1).trim();
            if (value.length() > 255) {
                throw new IllegalArgumentException("--provisioning-parameters: the value of " + key + " is longer than 255 characters");
            }
            if (out.put(key, value) != null) {
                throw new IllegalArgumentException("--provisioning-parameters: " + key + " is given twice");
            }
        }
        if (out.size() > 100) {
            throw new IllegalArgumentException("--provisioning-parameters: at most 100 parameters, got " + out.size());
        }
        return out;
    }
}
