package dev.muster.server.grpc;

import dev.muster.common.rpc.ProtoConverters;
import dev.muster.core.preempt.PreemptionAdvice;
import dev.muster.core.preempt.Victim;
import dev.muster.proto.v1.VictimUnit;
import dev.muster.proto.v1.WhatWouldItTakeResponse;
import dev.muster.proto.v1.WhatWouldItTakeResponse.Verdict;

/**
 * The dry run's answer ({@link PreemptionAdvice}) as {@code WhatWouldItTakeResponse}. {@link PreemptionAdvice.Unknown}
 * has no message: the service answers NOT_FOUND. Stateless.
 */
final class AdviceMessages {
    private AdviceMessages() {}

    static WhatWouldItTakeResponse response(PreemptionAdvice advice) {
        return switch (advice) {
            case PreemptionAdvice.NoneNeeded n -> WhatWouldItTakeResponse.newBuilder().setVerdict(Verdict.VERDICT_NONE_NEEDED).setWhy(n.why()).build();
            case PreemptionAdvice.CannotRun c -> WhatWouldItTakeResponse.newBuilder().setVerdict(Verdict.VERDICT_CANNOT_RUN).setWhy(c.why()).build();
            case PreemptionAdvice.Preempt p -> {
                WhatWouldItTakeResponse.Builder b = WhatWouldItTakeResponse.newBuilder().setVerdict(Verdict.VERDICT_PREEMPT)
                        .setKind(ProtoConverters.toProto(p.kind())).setPods(p.pods()).setNodes(p.nodes());
                for (PreemptionAdvice.VictimUnit u : p.victims()) {
                    b.addVictims(unit(u));
                }
                yield b.build();
            }
            case PreemptionAdvice.Unknown u -> throw new IllegalArgumentException("gang " + u.gang() + " is unknown: answer NOT_FOUND");
        };
    }

    private static VictimUnit unit(PreemptionAdvice.VictimUnit u) {
        VictimUnit.Builder b = VictimUnit.newBuilder().setQueue(u.queue()).setPriority(u.priority()).setSurplusOnly(u.surplusOnly());
        if (u.gang() != null) {
            b.setGang(ProtoConverters.toProto(u.gang()));
        }
        for (Victim v : u.pods()) {
            b.addPods(ProtoConverters.toProto(v));
        }
        return b.build();
    }
}
