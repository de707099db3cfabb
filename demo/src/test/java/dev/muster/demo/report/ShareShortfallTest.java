package dev.muster.demo.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.queue.FairShare;
import dev.muster.core.resources.Resources;
import dev.muster.demo.cluster.ClusterUsage;
import dev.muster.demo.scenario.NodeGroup;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Why a queue sat below its fair share, read from the samples and the gangs of a run. */
class ShareShortfallTest {
    private static final long MINUTE = 60_000_000_000L;
    private static final Resources NODE = Resources.builder().set("cpu", 8_000).set("memory", 32L << 30).set("nvidia.com/gpu", 8).build();
    private static final Resources GPU_POD = Resources.builder().set("cpu", 1_000).set("memory", 1L << 30).set("nvidia.com/gpu", 2).build();
    private static final Resources CPU_NODE = Resources.builder().set("cpu", 8_000).set("memory", 32L << 30).build();
    /** 10 nodes: 2 with GPUs (16 GPUs), 8 without; 80 cpu. */
    private static final List<NodeGroup> NODES = List.of(new NodeGroup("gpu", 2, NODE), new NodeGroup("general", 8, CPU_NODE));
    private static final Resources TOTAL = NODE.times(2).plus(CPU_NODE.times(8));

    private static Resources gpus(long n) {
        return Resources.builder().set("cpu", n * 500).set("memory", n << 29).set("nvidia.com/gpu", n).build();
    }

    /** A sample at {@code minute} where queue "ml" holds {@code held} GPUs against a fair share of 12, the cluster using {@code used}. */
    private static Sample sample(int minute, long held, boolean wantsMore, Resources used) {
        FairShare.Share ml = new FairShare.Share("ml", gpus(12), gpus(held), Resources.ZERO, held / 12.0, wantsMore);
        ClusterUsage usage = new ClusterUsage(TOTAL, used, Map.of(), Map.of(), Map.of(), 0, 0);
        return new Sample(minute * MINUTE, usage, Map.of("ml", ml));
    }

    private static GangOutcome gang(String name, int members, int createdMinute, int startedMinute) {
        return new GangOutcome(new GangKey("ml", name), "ml", members, members, createdMinute * MINUTE, startedMinute < 0 ? 0 : members,
                startedMinute < 0 ? -1 : startedMinute * MINUTE, 0, startedMinute < 0 ? GangOutcome.Kind.NEVER_STARTED : GangOutcome.Kind.WHOLE,
                null, GPU_POD);
    }

    @Test
    void aQueueAtItsShareNeedsNoExplanation() {
        List<ShareShortfall.Explanation> why = ShareShortfall.of(new ShareShortfall.Run(List.of(sample(1, 12, true, Resources.ZERO)),
                List.of(), Map.of(), TOTAL, NODES));

        assertThat(why).isEmpty();
    }

    @Test
    void eachSampleBelowTheShareIsPutDownToWhatHeldTheQueueBackThen() {
        Resources capability = gpus(12);
        List<Sample> samples = List.of(
                sample(0, 0, false, Resources.ZERO),            // nothing of ml waiting yet
                sample(2, 0, true, Resources.ZERO),             // small-1 and big-1 arrived at 2: being placed
                sample(4, 6, false, gpus(6)),                   // holds 6 of 12; big-1 needs 8 more: the capability
                sample(6, 6, true, TOTAL.minus(gpus(1))),       // the cluster is full: 1 GPU free, big-1 needs 8
                sample(8, 6, true, gpus(8)),                    // 8 GPUs free in all, but pods need 2 GPUs on one node: only 2 nodes can
                sample(10, 12, true, gpus(12)));                // at its share: not counted
        List<GangOutcome> gangs = List.of(gang("small-1", 3, 2, 3), gang("big-1", 4, 2, -1));

        List<ShareShortfall.Explanation> why = ShareShortfall.of(new ShareShortfall.Run(samples, gangs, Map.of("ml", capability), TOTAL, NODES));

        assertThat(why).singleElement().satisfies(e -> {
            assertThat(e.queue()).isEqualTo("ml");
            assertThat(e.belowSamples()).isEqualTo(5);
            assertThat(e.samplesByCause()).containsOnly(
                    Map.entry(ShareShortfall.Cause.NOTHING_WAITING, 1), Map.entry(ShareShortfall.Cause.ARRIVING, 1),
                    Map.entry(ShareShortfall.Cause.CAPABILITY, 1), Map.entry(ShareShortfall.Cause.CLUSTER_FULL, 1),
                    Map.entry(ShareShortfall.Cause.SHAPE, 1));
            assertThat(e.text()).startsWith("Why ml sat below its fair share: 10 points or more below in 5 of 6 samples")
                    .contains("of the cluster's gpu", "its capability allows 75%)")
                    .contains("its oldest waiting gang ml/big-1 needed 4 × (1 cpu, 1Gi mem, 2 gpu) = 4 cpu, 4Gi mem, 8 gpu")
                    .contains(", 1 gpu free")
                    .contains("only 2 of 10 nodes can hold one at all");
        });
    }
}
