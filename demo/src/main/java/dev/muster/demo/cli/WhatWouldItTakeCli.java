package dev.muster.demo.cli;

import dev.muster.common.config.Flags;
import dev.muster.common.rpc.LeaderRedirect;
import dev.muster.common.rpc.ProtoConverters;
import dev.muster.controller.rpc.ClientTls;
import dev.muster.controller.rpc.GrpcChannels;
import dev.muster.core.model.GangKey;
import dev.muster.core.preempt.Victim;
import dev.muster.core.status.PreemptionNotes;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.PreemptionKind;
import dev.muster.proto.v1.PreemptionVictim;
import dev.muster.proto.v1.ResourceList;
import dev.muster.proto.v1.VictimUnit;
import dev.muster.proto.v1.WhatWouldItTakeRequest;
import dev.muster.proto.v1.WhatWouldItTakeResponse;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * {@code what-would-it-take NAMESPACE/NAME [--extender host:port] [--tls-cert-file F --tls-key-file F] [--tls-ca-file F]
 * [--tls-server-name NAME]}: the extender's preemption dry run ({@code Extender.WhatWouldItTake}), over plaintext gRPC
 * or, given the files, TLS with a client certificate (the extender serves its gRPC verbs to clients its client CA
 * signed); the server's certificate is checked against {@code --tls-server-name}, else the target's host (through a
 * port-forward: the Service name the certificate was issued for). A standby's answer names the leader: the call is made
 * once more there, the certificate checked against the same name. Prints
 * the plan: victims grouped by queue and gang (single pods, which belong to no queue, last), one line per unit, then
 * each gang's pods and nodes. Nothing is changed.
 * Exit codes: 0 answered, 1 the call failed (the message says why), 2 bad arguments. Stateless.
 */
public final class WhatWouldItTakeCli {
    public static final String DEFAULT_EXTENDER = "127.0.0.1:9090";
    private static final String COMMAND = "muster what-would-it-take";

    private WhatWouldItTakeCli() {}

    public static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        if (args.isEmpty() || args.getFirst().startsWith("--")) {
            err.println(COMMAND + ": which gang? write what-would-it-take NAMESPACE/NAME");
            return 2;
        }
        GangKey gang = gangOf(args.getFirst());
        if (gang == null) {
            err.println(COMMAND + ": \"" + args.getFirst() + "\" is not NAMESPACE/NAME");
            return 2;
        }
        Flags flags;
        Optional<ClientTls> tls;
        try {
            flags = Flags.parse(args.subList(1, args.size()), Set.of("extender", "tls-cert-file", "tls-key-file", "tls-ca-file", "tls-server-name"), env);
            tls = ClientTls.fromFiles("--tls", flags.optional("tls-ca-file"), flags.optional("tls-cert-file"), flags.optional("tls-key-file"));
        } catch (IllegalArgumentException e) {
            err.println(COMMAND + ": " + e.getMessage());
            return 2;
        }
        String target = flags.string("extender", DEFAULT_EXTENDER);
        WhatWouldItTakeRequest request = WhatWouldItTakeRequest.newBuilder()
                .setGang(GangRef.newBuilder().setNamespace(gang.namespace()).setName(gang.name())).build();
        String serverName = flags.optional("tls-server-name");
        String authority = tls.isEmpty() ? null : serverName != null ? serverName : GrpcChannels.hostOf(target);
        String at = target;
        try {
            WhatWouldItTakeResponse answer;
            try {
                answer = call(at, tls, authority, request);
            } catch (StatusRuntimeException e) {
                Optional<String> leader = LeaderRedirect.leaderAddress(e.getStatus(), e.getTrailers());
                if (leader.isEmpty()) {
                    throw e;
                }
                at = leader.get();
                answer = call(at, tls, authority, request);
            }
            out.print(plan(gang, answer));
            return 0;
        } catch (StatusRuntimeException e) {
            err.println(COMMAND + ": " + explain(e, at));
            return 1;
        }
    }

    private static WhatWouldItTakeResponse call(String target, Optional<ClientTls> tls, String authority, WhatWouldItTakeRequest request) {
        ManagedChannel channel = GrpcChannels.open(target, tls, authority);
        try {
            return ExtenderGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).whatWouldItTake(request);
        } finally {
            channel.shutdownNow();
        }
    }

    static GangKey gangOf(String ref) {
        int slash = ref.indexOf('/');
        if (slash <= 0 || slash == ref.length() - 1 || ref.indexOf('/', slash + 1) >= 0) {
            return null;
        }
        return new GangKey(ref.substring(0, slash), ref.substring(slash + 1));
    }

    /**
     * The answer as a person reads it: one sentence, then (for a plan) a table of victim units sorted by queue, then gang
     * (single pods last in their queue), and the pods of each unit with their nodes.
     */
    static String plan(GangKey gang, WhatWouldItTakeResponse r) {
        return switch (r.getVerdict()) {
            case VERDICT_NONE_NEEDED -> gang + ": nothing to preempt: " + r.getWhy() + "\n";
            case VERDICT_CANNOT_RUN -> gang + ": cannot run, even with preemption: " + r.getWhy() + "\n";
            case VERDICT_PREEMPT -> preempt(gang, r);
            case VERDICT_UNSPECIFIED, UNRECOGNIZED -> gang + ": the extender's answer has no verdict (" + r.getVerdict() + ")\n";
        };
    }

    private static String preempt(GangKey gang, WhatWouldItTakeResponse r) {
        List<Victim> all = new ArrayList<>();
        for (VictimUnit u : r.getVictimsList()) {
            for (PreemptionVictim v : u.getPodsList()) {
                all.add(ProtoConverters.fromProto(v));
            }
        }
        String sentence = PreemptionNotes.preemptor(new AllocationEvent.PreemptionDecided(gang, "", 0,
                ProtoConverters.fromProto(r.getKind()), all, r.getNodes()));
        StringBuilder sb = new StringBuilder();
        sb.append(gang).append(": would run by ").append(sentence).append(r.getKind() == PreemptionKind.PREEMPTION_KIND_RECLAIM
                ? " (queue reclaim)" : " (priority)").append(", placing its ").append(PreemptionNotes.count(r.getPods(), "pod")).append('\n');
        List<VictimUnit> units = new ArrayList<>(r.getVictimsList());
        units.sort(Comparator.comparing((VictimUnit u) -> u.getQueue().isEmpty()).thenComparing(VictimUnit::getQueue)
                .thenComparing(u -> u.hasGang() ? 0 : 1).thenComparing(WhatWouldItTakeCli::victim));
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"QUEUE", "VICTIM", "EVICTS", "PRIORITY", "PODS", "NODES", "ROOM"});
        for (VictimUnit u : units) {
            Set<String> nodes = new TreeSet<>();
            dev.muster.core.resources.Resources room = dev.muster.core.resources.Resources.ZERO;
            for (PreemptionVictim v : u.getPodsList()) {
                nodes.add(v.getPod().getNode());
                room = room.plus(ProtoConverters.fromProto(v.getPod().getResources()));
            }
            ResourceList roomList = ProtoConverters.toProto(room);
            rows.add(new String[] {u.getQueue().isEmpty() ? "-" : u.getQueue(), victim(u),
                !u.hasGang() ? "single pod" : u.getSurplusOnly() ? "surplus members" : "whole gang", Integer.toString(u.getPriority()),
                Integer.toString(u.getPodsCount()), String.join(",", nodes), QueuesCli.resources(roomList, roomList)});
        }
        sb.append(Table.of(rows));
        for (VictimUnit u : units) {
            if (!u.hasGang()) {
                continue; // a single pod's line says all
            }
            List<String> pods = new ArrayList<>();
            for (PreemptionVictim v : u.getPodsList()) {
                pods.add(v.getPod().getPod().getName() + " on " + v.getPod().getNode());
            }
            pods.sort(null);
            sb.append("  ").append(victim(u)).append(": ").append(String.join(", ", pods)).append('\n');
        }
        return sb.toString();
    }

    private static String victim(VictimUnit u) {
        if (u.hasGang()) {
            return u.getGang().getNamespace() + "/" + u.getGang().getName();
        }
        return u.getPodsCount() == 0 ? "-" : u.getPods(0).getPod().getPod().getNamespace() + "/" + u.getPods(0).getPod().getPod().getName();
    }

    private static String explain(StatusRuntimeException e, String target) {
        return switch (e.getStatus().getCode()) {
            case UNAVAILABLE -> "cannot reach the extender at " + target + " (" + e.getStatus().getDescription()
                    + "); is `serve --embedded` running, or is --extender right?";
            case UNAUTHENTICATED, PERMISSION_DENIED -> "the extender at " + target + " refused the call (" + e.getStatus().getDescription()
                    + "): it serves clients whose certificate its client CA signed; give --tls-cert-file, --tls-key-file and --tls-ca-file";
            case NOT_FOUND, INVALID_ARGUMENT -> e.getStatus().getDescription();
            case DEADLINE_EXCEEDED -> "the extender at " + target + " did not answer within 10s";
            default -> e.getStatus().getCode() + ": " + e.getStatus().getDescription();
        };
    }
}
