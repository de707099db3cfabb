package dev.muster.server;

import dev.muster.core.scoring.ScoringPolicy;
import dev.muster.common.config.Durations;
import dev.muster.common.config.Flags;
import dev.muster.common.config.LeaderElectionSettings;
import dev.muster.common.leader.LeaderIdentity;
import dev.muster.common.tls.CallerRoles;
import dev.muster.server.grpc.DryRunLimiter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The extender's configuration: command-line flags ({@code --name value} or {@code --name=value}), each also read
 * from the environment as {@code MUSTER_<UPPER_SNAKE>} (a flag wins over the environment, which wins over the
 * default), plus the downward-API variables {@code POD_NAME}, {@code POD_NAMESPACE} and {@code POD_IP}. Every
 * validation error is an {@link IllegalArgumentException} whose message names the flag or variable.
 *
 * @param schedulerName  {@code --scheduler-name}: the schedulerName of pods this extender schedules
 * @param kubeconfig     {@code --kubeconfig}: path, or null for the in-cluster service account
 * @param httpPort       {@code --http-port}: extender verbs and /healthz /readyz /metrics (0 = any free port)
 * @param opsPort        {@code --ops-port}: plain-HTTP /healthz /readyz /metrics
 * @param grpcPort       {@code --grpc-port}: Extender, Allocations, health, reflection
 * @param gangDeadline   {@code --gang-deadline}: default reservation deadline (PodGroups may override)
 * @param admissionHold  {@code --admission-hold}: how long the bind of a gang member that cannot be admitted yet is
 *                       held while muster retries, before it fails and kube-scheduler requeues the pod
 * @param scoring        {@code --scoring}: binpack or spread
 * @param pickNode       {@code --pick-node}: a single pod's filter passes only the node {@code scoring} ranks best
 *                       (unless the pod has soft preferences), so kube-scheduler skips its own scoring
 * @param leaderElect    {@code --leader-elect}: elect a leader through a Lease (false: this process always leads)
 * @param leaseName      {@code --lease-name}
 * @param leaseNamespace {@code --lease-namespace}, else POD_NAMESPACE, else the service account's namespace; null
 *                       only when leader election is off and none is known
 * @param httpTls        {@code --tls-cert-file} + {@code --tls-key-file} (+ {@code --tls-client-ca-file} for mTLS) for the
 *                       HTTP verbs, or null for plain HTTP
 * @param grpcTls        {@code --grpc-tls-cert-file} + {@code --grpc-tls-key-file} (+ {@code --grpc-tls-client-ca-file}
 *                       for mTLS), or null for plaintext gRPC
 * @param maxBodyBytes   {@code --max-body-bytes}: largest accepted HTTP request body
 * @param journalWindow  {@code --journal-window}: allocation events kept for resuming streams
 * @param podName        POD_NAME (else HOSTNAME); null when unknown and leader election is off
 * @param podIp          POD_IP; null when unknown and leader election is off
 * @param topologyLevels {@code --topology-levels}: node label keys of the topology levels, widest first, comma-separated
 *                       (empty: none; gangs' required topology constraints then cannot be met)
 * @param setAsideAfter  {@code --set-aside-after}: how long a gang waits before room (and its queue's quota) is set
 *                       aside for it as the gang next in line
 * @param insecure       {@code --insecure-unauthenticated-verbs}: the verbs may be served without client certificates
 *                       (plain HTTP, plaintext gRPC, or TLS without a client CA); otherwise both ports need TLS with a
 *                       client CA, and start-up fails naming the missing flags
 * @param gangMarker     {@code --gang-marker}: kube-scheduler binds through Muster only pods that request
 *                       {@code muster.dev/gang} (its bind extender's managedResources, as extender-config/ and the chart
 *                       configure it); a gang member without it is refused at filter instead of bound outside its barrier
 * @param preemption     {@code --preemption}: a waiting gang or pod may evict pods of strictly lower priority (through the
 *                       Eviction API, PodDisruptionBudgets respected) to take their room
 * @param reclaim        {@code --reclaim}: a queue below its fair share may take room back from queues above theirs
 * @param victimMinRuntime {@code --victim-min-runtime}: how long a gang or pod must have held its room before it may be a
 *                       victim (against thrash)
 * @param reclaimBand    {@code --reclaim-band}: the band around fair share, as a fraction of it, within which reclaim
 *                       does not fire (a queue reclaims below 1 - band of its share, from queues above 1 + band of theirs)
 * @param callers        {@code --tls-client-roles}: which client certificate may call what
 * @param dryRunLimit    {@code --dry-run-rate}, {@code --dry-run-process-rate}, {@code --dry-run-burst}: how often the
 *                       preemption dry run may be asked, per caller and per process
 * @param tlsSecret      {@code --tls-secret}: {@code NAMESPACE/NAME} of the Secret whose keys the TLS files' names are,
 *                       read through the API and watched; null to read the files
 * @param provisioning   {@code --provisioning}, {@code --provisioning-class}, {@code --provisioning-parameters}: all-or-nothing
 *                       scale-up through cluster-autoscaler's ProvisioningRequest
 * @param queueGate      {@code --queue-admission-gate}: Muster lifts its scheduling gate {@code muster.dev/queue-admission}
 *                       (added to gang members by the chart's admission policy) once a gang's queue admits it
 * @param schedulerDeployment {@code --scheduler-deployment}: {@code NAMESPACE/NAME} of kube-scheduler's Deployment, which
 *                       the leader restarts when the CA of {@code tlsSecret} changes (its old pods are presented the
 *                       old CA's certificate until they are gone); null for none
 * @param warmUp         {@code --warm-up}: before it reports ready, the extender answers made-up requests through its own
 *                       verbs over a core of its own ({@link dev.muster.server.warmup.VerbWarmUp}), while the first sync runs
 */
public record ServerConfig(String schedulerName, String kubeconfig, int httpPort, int opsPort, int grpcPort,
                           Duration gangDeadline, Duration admissionHold, ScoringPolicy scoring, boolean leaderElect, String leaseName,
                           String leaseNamespace, TlsFiles httpTls, TlsFiles grpcTls, long maxBodyBytes,
                           int journalWindow, String podName, String podIp, List<String> topologyLevels, Duration setAsideAfter,
                           boolean pickNode, boolean gangMarker, boolean insecure, boolean preemption, boolean reclaim,
                           Duration victimMinRuntime, double reclaimBand, CallerRoles callers, DryRunLimiter.Limit dryRunLimit,
                           String tlsSecret, dev.muster.server.provision.ProvisionFlags provisioning, boolean queueGate,
                           String schedulerDeployment, boolean warmUp) {

    /** Certificate and key files in PEM, and optionally a CA bundle that client certificates must chain to. */
    public record TlsFiles(Path certFile, Path keyFile, Path clientCaFile) {
        public TlsFiles {
            Objects.requireNonNull(certFile, "certFile");
            Objects.requireNonNull(keyFile, "keyFile");
        }

        public boolean mutual() {
            return clientCaFile != null;
        }
    }

    /** The flag that allows verbs without client certificates: its name says what it gives up. */
    public static final String INSECURE = "insecure-unauthenticated-verbs";

    /** Flag name → description (with default), in the order {@link #usage()} prints them. */
    public static final Map<String, String> FLAGS;

    static {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("scheduler-name", "schedulerName of the pods this extender schedules (default " + ServerDefaults.SCHEDULER_NAME + ")");
        f.put("kubeconfig", "kubeconfig file (default: the in-cluster service account)");
        f.put("http-port", "port of the extender verbs and /healthz /readyz /metrics (default " + ServerDefaults.HTTP_PORT + ")");
        f.put("ops-port", "plain-HTTP /healthz /readyz /metrics port (default " + ServerDefaults.OPS_PORT + ")");
        f.put("grpc-port", "gRPC port (default " + ServerDefaults.GRPC_PORT + ")");
        f.put("gang-deadline", "how long a gang reservation waits for its binds (default "
                + Durations.format(ServerDefaults.GANG_DEADLINE) + "; kube-scheduler's extender httpTimeout must exceed it)");
        f.put("set-aside-after", "how long a gang must have waited before free room, and its queue's quota, are set aside "
                + "for it as the gang next in line, so smaller gangs cannot starve it (default "
                + Durations.format(dev.muster.core.scheduler.SchedulerConfig.DEFAULT_SET_ASIDE_AFTER) + ")");
        f.put("admission-hold", "how long the bind of a gang member that cannot be admitted yet (gang backing off, not fitting, "
                + "PodGroup not seen) is held before it fails and kube-scheduler retries the pod (default "
                + Durations.format(ServerDefaults.ADMISSION_HOLD) + "; must be shorter than --gang-deadline)");
        f.put("scoring", "binpack or spread (default " + ServerDefaults.SCORING + ")");
        f.put("pick-node", "true: a single pod passes filter only on the node --scoring ranks best, so kube-scheduler skips "
                + "its own scoring (pods with preferred affinity, pod (anti-)affinity or soft topology spreading pass on every "
                + "node that fits); false: every node that fits passes and kube-scheduler's score plugins choose (default true)");
        f.put("gang-marker", "true: kube-scheduler binds through muster only pods that request the extended resource "
                + "muster.dev/gang (the bind extender's managedResources; the chart's admission policy adds it to gang members), "
                + "so it binds single pods itself; a gang member without it is refused at filter, never bound outside its "
                + "barrier; false: kube-scheduler's one extender binds every pod through muster (default true)");
        f.put("warm-up", "true: while the first sync runs, the extender answers made-up filter and bind requests through its own verbs "
                + "over a throwaway core (nothing reaches the cluster), and reports ready once both are done, so its JIT has compiled "
                + "the verbs before kube-scheduler's first batch, as after a restart or when a standby takes over (about half a "
                + "CPU-second at start); false: it compiles them during the first batch (default true)");
        f.put("preemption", "true: a gang (or pod) that cannot be placed may evict whole gangs, or a gang's members above its "
                + "minMember, and pods of strictly lower priority, through the Eviction API so PodDisruptionBudgets hold; nothing "
                + "is evicted unless the whole gang then fits; false: it waits (default true)");
        f.put("reclaim", "true: a queue below its fair share with a waiting gang may evict gangs of queues above theirs to take "
                + "its share back (never a queue's guarantee, never a reclaimable: false queue); false: it waits (default true)");
        f.put("victim-min-runtime", "how long a gang or pod must have held its room before preemption or reclaim may evict it, "
                + "against thrash, e.g. 10m (default 0s)");
        f.put("reclaim-band", "the band around fair share, as a fraction of it, within which reclaim does not fire: a queue "
                + "reclaims only while below 1 - band of its share, and only from queues above 1 + band of theirs, so queues near "
                + "their share do not trade gangs; 0 to 0.99 (default " + dev.muster.core.preempt.PreemptionSettings.DEFAULT_RECLAIM_BAND + ")");
        f.put("queue-admission-gate", "true: muster lifts its scheduling gate muster.dev/queue-admission (the chart's admission "
                + "policy adds it to every gang member when extender.queueGate.enabled is true) once the gang's queue admits it, so "
                + "kube-scheduler and cluster autoscalers see no pod its queue holds back (default false)");
        f.put("dry-run-rate", "how many preemption dry runs (WhatWouldItTake, planned under the core's lock like a decision) "
                + "a second one caller (client certificate, else address) may ask; more are refused with RESOURCE_EXHAUSTED and "
                + "when to retry (default " + DryRunLimiter.Limit.DEFAULT.perCaller() + ")");
        f.put("dry-run-process-rate", "how many preemption dry runs a second all callers together may ask (default "
                + DryRunLimiter.Limit.DEFAULT.perProcess() + ")");
        f.put("dry-run-burst", "how many preemption dry runs a caller may ask at once after a quiet spell (default "
                + DryRunLimiter.Limit.DEFAULT.burst() + ")");
        f.put("leader-elect", "elect a leader through a coordination.k8s.io Lease (default true)");
        f.put("lease-name", "Lease name (default " + ServerDefaults.LEASE_NAME + ")");
        f.put("lease-namespace", "Lease namespace (default: POD_NAMESPACE, else the service account's namespace)");
        f.put("tls-cert-file", "PEM certificate for HTTPS on the extender verbs (with --tls-key-file)");
        f.put("tls-key-file", "PEM private key for --tls-cert-file");
        f.put("tls-client-ca-file", "PEM CA bundle: the verbs serve only clients presenting a certificate it signed (kube-scheduler's "
                + "extender tlsConfig certFile/keyFile); required unless --" + INSECURE);
        f.put("grpc-tls-cert-file", "PEM certificate for gRPC TLS (with --grpc-tls-key-file)");
        f.put("grpc-tls-key-file", "PEM private key for --grpc-tls-cert-file");
        f.put("grpc-tls-client-ca-file", "PEM CA bundle: require client certificates signed by it (mTLS); required unless --" + INSECURE);
        f.put("tls-secret", "NAMESPACE/NAME: read the TLS certificate, key and CA of both ports from this Secret through the API"
                + " (the files' names are its keys: .../tls.crt is the key tls.crt) and watch it, so a rotation is taken up within about"
                + " a second, not when the kubelet updates the Secret volume; needs get, list and watch on that Secret (default: read the files)");
        f.put("scheduler-deployment", "NAMESPACE/NAME of kube-scheduler's Deployment: when the CA (ca.crt) of --tls-secret changes, the"
                + " leader sets its pod template annotation checksum/extender-ca to the new CA's checksum, which restarts kube-scheduler"
                + " (it reads its extender caFile only at start); until no pod of it that started before the change is left (at most 5 min),"
                + " the HTTPS port keeps presenting the old CA's certificate; needs get and patch on that Deployment and list on pods"
                + " (default: none)");
        f.put("tls-client-roles", "which client certificate (by its subject common name) may call what, as role=CN,...: the "
                + "verbs (HTTP and gRPC) only role scheduler (kube-scheduler), a verb another replica forwarded only role extender, "
                + "the allocation stream only role controller, the dry run (WhatWouldItTake) only role operator; e.g. "
                + "scheduler=muster-scheduler,extender=muster-extender.muster-system.svc,controller=muster-controller,operator=muster-operator "
                + "(default: every certificate the client CA signed may call everything)");
        f.put(INSECURE, "for development only: serve the verbs (HTTP and gRPC, which bind pods across the cluster) and the "
                + "allocation stream to any client that reaches the ports, without client certificates (default false)");
        f.put("max-body-bytes", "largest accepted HTTP request body (default " + ServerDefaults.MAX_BODY_BYTES + ")");
        f.put("journal-window", "allocation events kept for resuming streams (default " + ServerDefaults.JOURNAL_WINDOW + ")");
        f.put("topology-levels", "node label keys of the topology levels gangs may ask for, widest first, comma-separated, e.g. "
                + "topology.kubernetes.io/zone,example.com/block,example.com/rack,kubernetes.io/hostname (default: none)");
        dev.muster.server.provision.ProvisionFlags.describe(f);
        FLAGS = java.util.Collections.unmodifiableMap(f);
    }

    static final Path SERVICE_ACCOUNT_NAMESPACE = LeaderElectionSettings.SERVICE_ACCOUNT_NAMESPACE;

    /** Parses {@code args} and {@code env} (normally {@code System.getenv()}). */
    public static ServerConfig parse(List<String> args, Map<String, String> env) {
        return parse(args, env, SERVICE_ACCOUNT_NAMESPACE);
    }

    static ServerConfig parse(List<String> args, Map<String, String> env, Path serviceAccountNamespaceFile) {
        Flags flags = Flags.parse(args, FLAGS.keySet(), env);

        String schedulerName = flags.string("scheduler-name", ServerDefaults.SCHEDULER_NAME).trim();
        if (schedulerName.isEmpty()) {
            throw new IllegalArgumentException("--scheduler-name must not be empty");
        }
        String kubeconfig = flags.optional("kubeconfig");
        if (kubeconfig != null) {
            Flags.readableFile("kubeconfig", kubeconfig);
        }
        int httpPort = flags.port("http-port", ServerDefaults.HTTP_PORT);
        int opsPort = flags.port("ops-port", ServerDefaults.OPS_PORT);
        int grpcPort = flags.port("grpc-port", ServerDefaults.GRPC_PORT);
        distinct("http-port", httpPort, "ops-port", opsPort);
        distinct("http-port", httpPort, "grpc-port", grpcPort);
        distinct("ops-port", opsPort, "grpc-port", grpcPort);

        Duration gangDeadline = flags.duration("gang-deadline", ServerDefaults.GANG_DEADLINE);
        if (gangDeadline.isZero() || gangDeadline.isNegative()) {
            throw new IllegalArgumentException("--gang-deadline must be positive, got " + Durations.format(gangDeadline));
        }
        Duration admissionHold = flags.duration("admission-hold", ServerDefaults.ADMISSION_HOLD);
        if (admissionHold.isNegative() || admissionHold.compareTo(gangDeadline) >= 0) {
            throw new IllegalArgumentException("--admission-hold must be at least 0 and shorter than --gang-deadline ("
                    + Durations.format(gangDeadline) + "), got " + Durations.format(admissionHold));
        }
        ScoringPolicy scoring;
        try {
            scoring = ScoringPolicy.parse(flags.string("scoring", ServerDefaults.SCORING));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--scoring: " + e.getMessage());
        }
        LeaderElectionSettings leader = LeaderElectionSettings.parse(flags, env, ServerDefaults.LEASE_NAME, serviceAccountNamespaceFile);
        boolean leaderElect = leader.leaderElect();
        if (leaderElect && (httpPort == 0 || grpcPort == 0)) {
            throw new IllegalArgumentException("--" + (httpPort == 0 ? "http-port" : "grpc-port") + " 0 cannot be published in the "
                    + "Lease: with leader election standbys reach the leader at the ports it publishes (give a port, or pass --leader-elect=false)");
        }
        String leaseName = leader.leaseName();
        String leaseNamespace = leader.leaseNamespace();
        String podName = leader.podName();
        String podIp = leader.podIp();

        TlsFiles httpTls = tls(flags, "tls-cert-file", "tls-key-file", "tls-client-ca-file");
        TlsFiles grpcTls = tls(flags, "grpc-tls-cert-file", "grpc-tls-key-file", "grpc-tls-client-ca-file");
        boolean insecure = flags.bool(INSECURE, false);
        if (!insecure) {
            List<String> missing = new java.util.ArrayList<>();
            if (httpTls == null || !httpTls.mutual()) {
                missing.addAll(httpTls == null ? List.of("--tls-cert-file", "--tls-key-file", "--tls-client-ca-file") : List.of("--tls-client-ca-file"));
            }
            if (grpcTls == null || !grpcTls.mutual()) {
                missing.addAll(grpcTls == null ? List.of("--grpc-tls-cert-file", "--grpc-tls-key-file", "--grpc-tls-client-ca-file")
                        : List.of("--grpc-tls-client-ca-file"));
            }
            if (!missing.isEmpty()) {
                throw new IllegalArgumentException("missing " + String.join(", ", missing) + ": the extender's verbs bind pods across the"
                        + " cluster, so they serve only clients presenting a certificate the client CA signed (the chart makes the"
                        + " certificates); for development without certificates pass --" + INSECURE);
            }
        }

        long maxBodyBytes = flags.longValue("max-body-bytes", ServerDefaults.MAX_BODY_BYTES);
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("--max-body-bytes must be at least 1, got " + maxBodyBytes);
        }
        int journalWindow = flags.integer("journal-window", ServerDefaults.JOURNAL_WINDOW);
        if (journalWindow < 1) {
            throw new IllegalArgumentException("--journal-window must be at least 1, got " + journalWindow);
        }
        Duration setAsideAfter = flags.duration("set-aside-after", dev.muster.core.scheduler.SchedulerConfig.DEFAULT_SET_ASIDE_AFTER);
        if (setAsideAfter.isNegative()) {
            throw new IllegalArgumentException("--set-aside-after must not be negative, got " + Durations.format(setAsideAfter));
        }
        List<String> topologyLevels = topologyLevels(flags.string("topology-levels", ""));
        boolean pickNode = flags.bool("pick-node", true);
        boolean gangMarker = flags.bool("gang-marker", true);
        boolean preemption = flags.bool("preemption", true);
        boolean reclaim = flags.bool("reclaim", true);
        Duration victimMinRuntime = flags.duration("victim-min-runtime", Duration.ZERO);
        if (victimMinRuntime.isNegative()) {
            throw new IllegalArgumentException("--victim-min-runtime must not be negative, got " + Durations.format(victimMinRuntime));
        }
        double reclaimBand = flags.decimal("reclaim-band", dev.muster.core.preempt.PreemptionSettings.DEFAULT_RECLAIM_BAND);
        if (!(reclaimBand >= 0 && reclaimBand < 1)) {
            throw new IllegalArgumentException("--reclaim-band must be a fraction of fair share from 0 up to (not including) 1, e.g. 0.1, got "
                    + flags.string("reclaim-band", ""));
        }
        dev.muster.server.provision.ProvisionFlags provisioning = dev.muster.server.provision.ProvisionFlags.parse(flags);
        boolean queueGate = flags.bool("queue-admission-gate", false);
        if (provisioning.enabled() && !queueGate) {
            throw new IllegalArgumentException("--provisioning needs --queue-admission-gate=true: a gang waits for the autoscaler's "
                    + "nodes behind Muster's scheduling gate, else the autoscaler would also scale up for its pods one by one");
        }
        return new ServerConfig(schedulerName, kubeconfig, httpPort, opsPort, grpcPort, gangDeadline, admissionHold, scoring, leaderElect,
                leaseName, leaseNamespace, httpTls, grpcTls, maxBodyBytes, journalWindow, podName, podIp, topologyLevels, setAsideAfter,
                pickNode, gangMarker, insecure, preemption, reclaim, victimMinRuntime, reclaimBand, CallerRoles.parse("tls-client-roles",
                flags.optional("tls-client-roles")), dryRunLimit(flags), tlsSecret(flags, httpTls, grpcTls), provisioning, queueGate,
                schedulerDeployment(flags, tlsSecret(flags, httpTls, grpcTls), httpTls), flags.bool("warm-up", true));
    }

    /** {@code --dry-run-rate}, {@code --dry-run-process-rate}, {@code --dry-run-burst}. */
    private static DryRunLimiter.Limit dryRunLimit(Flags flags) {
        DryRunLimiter.Limit d = DryRunLimiter.Limit.DEFAULT;
        double perCaller = flags.decimal("dry-run-rate", d.perCaller());
        double perProcess = flags.decimal("dry-run-process-rate", d.perProcess());
        int burst = flags.integer("dry-run-burst", d.burst());
        if (!(perCaller > 0) || !(perProcess > 0) || burst < 1) {
            throw new IllegalArgumentException("--dry-run-rate and --dry-run-process-rate must be above 0 and --dry-run-burst at least 1, got "
                    + perCaller + ", " + perProcess + " and " + burst);
        }
        return new DryRunLimiter.Limit(perCaller, perProcess, burst);
    }

    /** {@code --topology-levels}: comma-separated label keys, widest first; empty, repeated or malformed keys are named. */
    static List<String> topologyLevels(String text) {
        if (text.isBlank()) {
            return List.of();
        }
        List<String> keys = new java.util.ArrayList<>();
        for (String part : text.split(",", -1)) {
            String key = part.strip();
            if (key.isEmpty()) {
                throw new IllegalArgumentException("--topology-levels \"" + text + "\": an empty label key (check the commas)");
            }
            if (!key.matches("([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")) {
                throw new IllegalArgumentException("--topology-levels: \"" + key + "\" is not a valid label key");
            }
            if (keys.contains(key)) {
                throw new IllegalArgumentException("--topology-levels: label key " + key + " is listed twice");
            }
            keys.add(key);
        }
        return List.copyOf(keys);
    }

    /**
     * The Lease holder identity {@code <POD_NAME>_http=<HTTP_PORT>,grpc=<GRPC_PORT>_<POD_IP>}: where this replica
     * serves, so that standbys reach it there when it leads. Only when leader election is on.
     */
    public LeaderIdentity leaderIdentity() {
        if (!leaderElect) {
            throw new IllegalStateException("leader election is off (--leader-elect=false)");
        }
        return new LeaderIdentity(podName, podIp, httpPort, grpcPort);
    }

    /** One line per flag, for {@code --help} and error output. */
    public static String usage() {
        StringBuilder sb = new StringBuilder("Flags (each also as env MUSTER_<UPPER_SNAKE>, e.g. MUSTER_GANG_DEADLINE):\n");
        FLAGS.forEach((name, description) -> sb.append(String.format("  --%-26s %s%n", name, description)));
        sb.append("Environment (downward API): POD_NAME, POD_NAMESPACE, POD_IP\n");
        return sb.toString();
    }


    private static void distinct(String a, int portA, String b, int portB) {
        if (portA != 0 && portA == portB) {
            throw new IllegalArgumentException("--" + a + " and --" + b + " are both " + portA + "; they must differ");
        }
    }

    private static String tlsSecret(Flags flags, TlsFiles httpTls, TlsFiles grpcTls) {
        String v = flags.optional("tls-secret");
        if (v == null || v.isBlank()) {
            return null;
        }
        dev.muster.common.kube.TlsSecretWatch.parse("tls-secret", v);
        if (httpTls == null && grpcTls == null) {
            throw new IllegalArgumentException("--tls-secret names where the TLS files are read from, but no --tls-cert-file or --grpc-tls-cert-file is given");
        }
        return v.strip();
    }

    private static String schedulerDeployment(Flags flags, String tlsSecret, TlsFiles httpTls) {
        String v = flags.optional("scheduler-deployment");
        if (v == null || v.isBlank()) {
            return null;
        }
        dev.muster.common.kube.TlsSecretWatch.parse("scheduler-deployment", v);
        if (tlsSecret == null) {
            throw new IllegalArgumentException("--scheduler-deployment restarts kube-scheduler when the CA of --tls-secret changes, but no --tls-secret is given");
        }
        if (httpTls == null) {
            throw new IllegalArgumentException("--scheduler-deployment restarts kube-scheduler when the certificate it is served changes, but no --tls-cert-file is given");
        }
        return v.strip();
    }

    private static TlsFiles tls(Flags flags, String certFlag, String keyFlag, String caFlag) {
        String cert = flags.optional(certFlag);
        String key = flags.optional(keyFlag);
        String ca = caFlag == null ? null : flags.optional(caFlag);
        if (cert == null && key == null) {
            if (ca != null) {
                throw new IllegalArgumentException("--" + caFlag + " needs --" + certFlag + " and --" + keyFlag);
            }
            return null;
        }
        if (cert == null || key == null) {
            throw new IllegalArgumentException("--" + certFlag + " and --" + keyFlag + " go together; only --"
                    + (cert == null ? keyFlag : certFlag) + " is set");
        }
        return new TlsFiles(Flags.readableFile(certFlag, cert), Flags.readableFile(keyFlag, key),
                ca == null ? null : Flags.readableFile(caFlag, ca));
    }



}
