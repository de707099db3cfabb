package dev.muster.server.http;

import java.util.List;

/**
 * The HTTP paths kube-scheduler calls (its extender config names the verbs: {@code urlPrefix} +
 * "/" + verb) and the operational endpoints. extender-config/ and the Helm chart are checked against
 * these constants by deploy-tests.
 */
public final class ExtenderRoutes {
    public static final String FILTER_VERB = "filter";
    public static final String PRIORITIZE_VERB = "prioritize";
    public static final String BIND_VERB = "bind";
    public static final String PREEMPT_VERB = "preempt";
    public static final List<String> VERBS = List.of(FILTER_VERB, PRIORITIZE_VERB, BIND_VERB, PREEMPT_VERB);

    public static final String HEALTHZ = "/healthz";
    public static final String READYZ = "/readyz";
    public static final String METRICS = "/metrics";

    private ExtenderRoutes() {}
}
