package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.protobuf.CodedOutputStream;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeList;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The protobuf decoders against real captures (common/src/test/resources/kube-proto, see its README): the same objects
 * read from the API server's JSON and from its protobuf give equal slim objects.
 */
class SlimProtoTest {
    static byte[] fixture(String name) {
        try (InputStream in = SlimProtoTest.class.getResourceAsStream("/kube-proto/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no fixture kube-proto/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonReader json(String name) {
        JsonReader in = new JsonReader(new InputStreamReader(new ByteArrayInputStream(fixture(name)), StandardCharsets.UTF_8));
        in.setStrictness(Strictness.LENIENT);
        return in;
    }

    static List<SlimJson.Event<V1Pod>> jsonEvents(String name) throws IOException {
        JsonReader in = json(name);
        List<SlimJson.Event<V1Pod>> out = new ArrayList<>();
        while (in.peek() != JsonToken.END_DOCUMENT) {
            out.add(SlimJson.readEvent(in, SlimPodJson::readPod));
        }
        return out;
    }

    static List<SlimJson.Event<V1Pod>> protoEvents(byte[] stream) throws IOException {
        SlimProtoFrames frames = new SlimProtoFrames(new ByteArrayInputStream(stream));
        List<SlimJson.Event<V1Pod>> out = new ArrayList<>();
        while (frames.hasNext()) {
            out.add(SlimPodProto.readEvent(frames.next()));
        }
        return out;
    }

    private static V1Pod named(List<V1Pod> pods, String name) {
        return pods.stream().filter(p -> name.equals(p.getMetadata().getName())).findFirst().orElseThrow();
    }

    @Test
    void aPodListReadFromProtobufEqualsTheSameListReadFromJson() throws IOException {
        V1PodList fromJson = SlimPodJson.readList(json("list-pods.json"));
        V1PodList fromProto = SlimPodProto.readList(new ByteArrayInputStream(fixture("list-pods.pb")));

        assertThat(fromProto).isEqualTo(fromJson);
        assertThat(fromProto.getApiVersion()).isEqualTo("v1");
        assertThat(fromProto.getKind()).isEqualTo("PodList");
        assertThat(fromProto.getMetadata().getResourceVersion()).isNotBlank();
        assertThat(fromProto.getItems()).extracting(p -> p.getMetadata().getName()).containsExactlyInAnyOrder("plain", "w0", "w1");
        for (V1Pod p : fromProto.getItems()) {
            assertThat(PodConverter.toCore(p)).isEqualTo(PodConverter.toCore(named(fromJson.getItems(), p.getMetadata().getName())));
        }
    }

    @Test
    void everyKeptFieldOfTheCapturedGangMemberIsReadFromProtobuf() throws IOException {
        V1Pod w0 = named(SlimPodProto.readList(new ByteArrayInputStream(fixture("list-pods.pb"))).getItems(), "w0");

        assertThat(w0.getMetadata().getNamespace()).isEqualTo("team-a");
        assertThat(w0.getMetadata().getUid()).isNotBlank();
        assertThat(w0.getMetadata().getDeletionTimestamp()).isAfter(OffsetDateTime.parse("2026-01-01T00:00:00Z"));
        assertThat(w0.getMetadata().getAnnotations()).containsOnlyKeys("scheduling.k8s.io/group-name", "volcano.sh/task-spec");
        // bound: every label is kept (PodDisruptionBudgets select victims by them)
        assertThat(w0.getMetadata().getLabels()).containsOnlyKeys("app", "scheduling.x-k8s.io/pod-group");
        assertThat(w0.getMetadata().getOwnerReferences()).extracting(o -> o.getKind() + "/" + o.getName() + "/" + o.getController())
                .containsExactly("Job/train/true", "ConfigMap/cfg/null");
        assertThat(w0.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(w0.getSpec().getNodeName()).isEqualTo("n1");
        assertThat(w0.getSpec().getPriority()).isEqualTo(7);
        assertThat(w0.getSpec().getPreemptionPolicy()).isEqualTo("PreemptLowerPriority");
        assertThat(w0.getSpec().getTerminationGracePeriodSeconds()).isEqualTo(30L);
        assertThat(w0.getSpec().getSchedulerName()).isEqualTo("muster");
        assertThat(w0.getSpec().getSchedulingGroup().getPodGroupName()).isEqualTo("train-pg");
        assertThat(w0.getSpec().getOverhead()).containsOnlyKeys("cpu", "memory");
        assertThat(w0.getSpec().getOverhead().get("cpu").toSuffixedString()).isEqualTo("50m");
        assertThat(w0.getSpec().getResources().getRequests().get("memory").toSuffixedString()).isEqualTo("6Gi");
        assertThat(w0.getSpec().getResources().getLimits()).isNullOrEmpty();
        assertThat(w0.getSpec().getInitContainers()).extracting(V1Container::getName, V1Container::getRestartPolicy)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("init", null), org.assertj.core.groups.Tuple.tuple("proxy", "Always"));
        assertThat(w0.getSpec().getContainers()).extracting(V1Container::getName).containsExactly("main", "side");
        assertThat(w0.getSpec().getContainers().get(0).getResources().getRequests()).containsOnlyKeys("cpu", "memory", "nvidia.com/gpu");
        assertThat(w0.getSpec().getContainers().get(0).getEnv()).isNullOrEmpty();
        assertThat(w0.getSpec().getContainers().get(1).getResources()).isNull(); // no requests
        assertThat(w0.getSpec().getVolumes()).isNullOrEmpty();
        assertThat(w0.getStatus().getPhase()).isEqualTo("Running");
        assertThat(w0.getStatus().getConditions()).isNullOrEmpty();
    }

    @Test
    void theNominatedNodeIsReadFromProtobuf() throws IOException {
        byte[] meta = message(o -> {
            o.writeString(1, "vip");
            o.writeString(3, "team-a");
            o.writeString(5, "u-vip");
        });
        byte[] status = message(o -> {
            o.writeString(1, "Pending");
            o.writeString(11, "n2"); // PodStatus.nominatedNodeName
        });
        byte[] pod = message(o -> {
            o.writeByteArray(1, meta);
            o.writeByteArray(3, status);
        });
        V1Pod read = SlimPodProto.readPod(com.google.protobuf.CodedInputStream.newInstance(pod));
        assertThat(read.getStatus().getNominatedNodeName()).isEqualTo("n2");
        assertThat(PodConverter.toCore(read).nominatedNodeName()).isEqualTo("n2");
    }

    @Test
    void aPendingPodKeepsOnlyTheGangLabel() throws IOException {
        V1Pod plain = named(SlimPodProto.readList(new ByteArrayInputStream(fixture("list-pods.pb"))).getItems(), "plain");
        assertThat(plain.getSpec().getNodeName()).isNull();
        assertThat(plain.getMetadata().getLabels()).isNull(); // "app" is not kept for a pod that cannot be a victim
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"watch-pods", "watch-pods-initial", "watch-pods-error"})
    void aWatchStreamReadFromProtobufEqualsTheSameStreamReadFromJsonEventByEvent(String capture) throws IOException {
        List<SlimJson.Event<V1Pod>> fromJson = jsonEvents(capture + ".json");
        List<SlimJson.Event<V1Pod>> fromProto = protoEvents(fixture(capture + ".pb"));

        assertThat(fromProto).isNotEmpty().isEqualTo(fromJson);
    }

    @Test
    void theWatchCapturesCoverEveryEventType() throws IOException {
        List<SlimJson.Event<V1Pod>> watch = protoEvents(fixture("watch-pods.pb"));
        assertThat(watch).extracting(SlimJson.Event::type).contains("ADDED", "MODIFIED", "DELETED", "BOOKMARK");
        SlimJson.Event<V1Pod> added = watch.getFirst();
        assertThat(added.object().getApiVersion()).isEqualTo("v1");
        assertThat(added.object().getKind()).isEqualTo("Pod");

        List<SlimJson.Event<V1Pod>> initial = protoEvents(fixture("watch-pods-initial.pb"));
        SlimJson.Event<V1Pod> bookmark = initial.getLast();
        assertThat(bookmark.type()).isEqualTo("BOOKMARK");
        assertThat(bookmark.object().getMetadata().getResourceVersion()).isNotBlank();
        assertThat(bookmark.object().getMetadata().getName()).isNull();

        SlimJson.Event<V1Pod> error = protoEvents(fixture("watch-pods-error.pb")).getFirst();
        assertThat(error.type()).isEqualTo("ERROR");
        assertThat(error.object()).isNull();
        assertThat(error.status().getCode()).isEqualTo(410);
        assertThat(error.status().getReason()).isEqualTo("Expired");
        assertThat(error.status().getKind()).isEqualTo("Status");
        assertThat(error.status().getMessage()).contains("too old");
    }

    @Test
    void aNodeListReadFromProtobufEqualsTheSameListReadFromJson() throws IOException {
        V1NodeList fromJson = SlimNodeJson.readList(json("list-nodes.json"));
        V1NodeList fromProto = SlimNodeProto.readList(new ByteArrayInputStream(fixture("list-nodes.pb")));

        assertThat(fromProto).isEqualTo(fromJson);
        V1Node n1 = fromProto.getItems().stream().filter(n -> n.getMetadata().getName().equals("n1")).findFirst().orElseThrow();
        assertThat(n1.getMetadata().getLabels()).containsEntry("topology.kubernetes.io/zone", "z1");
        assertThat(n1.getSpec().getUnschedulable()).isTrue();
        assertThat(n1.getSpec().getTaints()).extracting(t -> t.getKey()).containsExactly("a", "b", "node.kubernetes.io/not-ready");
        assertThat(n1.getStatus().getAllocatable().get("cpu").toSuffixedString()).isEqualTo("31800m");
        assertThat(n1.getStatus().getImages()).isNullOrEmpty();
    }

    // ---- malformed input ----

    @Test
    void aStreamEndingInsideAFrameIsAnErrorSayingSo() {
        byte[] stream = fixture("watch-pods.pb");
        byte[] cut = Arrays.copyOf(stream, stream.length - 10);
        assertThatThrownBy(() -> protoEvents(cut)).isInstanceOf(IOException.class).hasMessageContaining("watch frame")
                .hasMessageMatching(".*stream ended after \\d+ of the frame's \\d+ bytes.*");
        assertThatThrownBy(() -> protoEvents(new byte[] {0, 0})).isInstanceOf(IOException.class)
                .hasMessageContaining("inside a frame's 4-byte length");
    }

    @Test
    void anImpossibleFrameLengthIsRefused() {
        assertThatThrownBy(() -> protoEvents(new byte[] {(byte) 0xff, 0, 0, 0, 1})).isInstanceOf(IOException.class)
                .hasMessageContaining("is not a frame length");
    }

    @Test
    void anObjectWithoutTheK8sPrefixIsRefused() {
        byte[] list = fixture("list-pods.pb");
        byte[] wrong = list.clone();
        wrong[0] = '{';
        assertThatThrownBy(() -> SlimPodProto.readList(new ByteArrayInputStream(wrong))).isInstanceOf(IOException.class)
                .hasMessageContaining("no k8s\\0 prefix");
        byte[] event = frame(watchEvent("ADDED", "K8S\0".getBytes(StandardCharsets.ISO_8859_1)));
        assertThatThrownBy(() -> protoEvents(event)).isInstanceOf(IOException.class).hasMessageContaining("watch event object")
                .hasMessageContaining("no k8s\\0 prefix");
    }

    @Test
    void aKeptFieldWithTheWrongWireTypeIsAnErrorNamingTheField() {
        // Pod{metadata{name = varint 7}}: name must be length-delimited
        byte[] pod = message(out -> {
            out.writeTag(1, 2);
            byte[] meta = message(m -> m.writeInt32(1, 7));
            out.writeByteArrayNoTag(meta);
        });
        assertThatThrownBy(() -> protoEvents(frame(watchEvent("ADDED", enveloped("Pod", pod))))).isInstanceOf(IOException.class)
                .hasMessageContaining("metadata.name").hasMessageContaining("expected wire type 2 (length-delimited), found 0 (varint)");
        // Pod{spec{priority = "7"}}: priority must be a varint
        byte[] spec = message(out -> {
            out.writeTag(2, 2);
            out.writeByteArrayNoTag(message(s -> s.writeString(25, "7")));
        });
        assertThatThrownBy(() -> protoEvents(frame(watchEvent("ADDED", enveloped("Pod", spec))))).isInstanceOf(IOException.class)
                .hasMessageContaining("spec.priority").hasMessageContaining("found 2 (length-delimited)");
    }

    @Test
    void aNestedLengthRunningPastItsMessageIsAnErrorNamingTheField() {
        // Pod{spec{containers: length 50, 3 bytes follow}}
        byte[] pod = message(out -> {
            out.writeTag(2, 2);
            out.writeByteArrayNoTag(new byte[] {(2 << 3) | 2, 50, 10, 1, 'c'});
        });
        assertThatThrownBy(() -> protoEvents(frame(watchEvent("MODIFIED", enveloped("Pod", pod))))).isInstanceOf(IOException.class)
                .hasMessageContaining("spec.containers").hasMessageContaining("runs past the end");
    }

    @Test
    void anEventWithoutATypeIsRefusedAndAnErrorWithoutAStatusStillFails() throws IOException {
        byte[] noType = frame(message(out -> out.writeByteArray(2, message(r -> r.writeByteArray(1, enveloped("Pod", new byte[0]))))));
        assertThatThrownBy(() -> protoEvents(noType)).isInstanceOf(IOException.class).hasMessageContaining("without a type");

        SlimJson.Event<V1Pod> error = protoEvents(frame(message(out -> out.writeString(1, "ERROR")))).getFirst();
        assertThat(error.status().getStatus()).isEqualTo("Failure");
    }

    // ---- hand-built protobuf ----

    interface Writer {
        void write(CodedOutputStream out) throws IOException;
    }

    static byte[] message(Writer w) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            w.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] enveloped(String kind, byte[] raw) {
        byte[] unknown = message(out -> {
            out.writeByteArray(1, message(t -> {
                t.writeString(1, "v1");
                t.writeString(2, kind);
            }));
            out.writeByteArray(2, raw);
        });
        byte[] all = new byte[4 + unknown.length];
        System.arraycopy(new byte[] {'k', '8', 's', 0}, 0, all, 0, 4);
        System.arraycopy(unknown, 0, all, 4, unknown.length);
        return all;
    }

    static byte[] watchEvent(String type, byte[] object) {
        return message(out -> {
            out.writeString(1, type);
            out.writeByteArray(2, message(r -> r.writeByteArray(1, object)));
        });
    }

    static byte[] frame(byte[] event) {
        byte[] f = new byte[4 + event.length];
        f[0] = (byte) (event.length >>> 24);
        f[1] = (byte) (event.length >>> 16);
        f[2] = (byte) (event.length >>> 8);
        f[3] = (byte) event.length;
        System.arraycopy(event, 0, f, 4, event.length);
        return f;
    }
}
