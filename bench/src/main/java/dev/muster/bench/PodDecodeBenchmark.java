package dev.muster.bench;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.muster.common.kube.SlimPodJson;
import dev.muster.common.kube.SlimPodProto;
import io.kubernetes.client.openapi.models.V1PodList;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The pod informer's decoding, JSON ({@link SlimPodJson}) against protobuf ({@link SlimPodProto}), on the same objects
 * captured from kube-apiserver v1.36.3 in both encodings ({@code common/src/test/resources/kube-proto}, on the
 * classpath through muster-common's test jar):
 * <ul>
 *   <li>{@code watch...}: the 10 events of {@code watch-pods.{json,pb}} (pods with managed fields, volumes, env;
 *       ADDED/MODIFIED/DELETED and bookmarks), read from the whole answer as the watch reads it (the
 *       setup checks both captures hold the same number of events).</li>
 *   <li>{@code list...}: {@code list-pods.{json,pb}}, a PodList of 3 pods, decoded from a stream.</li>
 * </ul>
 * Run: {@code java -cp <bench classpath> org.openjdk.jmh.Main PodDecodeBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PodDecodeBenchmark {
    private List<byte[]> jsonEvents;
    private List<byte[]> protoFrames;
    private byte[] jsonWatch;
    private byte[] protoWatch;
    private byte[] jsonList;
    private byte[] protoList;

    static byte[] fixture(String name) {
        try (InputStream in = PodDecodeBenchmark.class.getResourceAsStream("/kube-proto/" + name)) {
            if (in == null) {
                throw new IllegalStateException("kube-proto/" + name + " is not on the classpath (muster-common's test jar)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One JSON watch event per line, as the API server writes them. */
    static List<byte[]> jsonLines(byte[] stream) {
        List<byte[]> out = new ArrayList<>();
        for (String line : new String(stream, StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
                out.add(line.getBytes(StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    /** The frames of a protobuf watch (4-byte big-endian length, then the event). */
    static List<byte[]> frames(byte[] stream) {
        List<byte[]> out = new ArrayList<>();
        int i = 0;
        while (i < stream.length) {
            int n = ((stream[i] & 0xff) << 24) | ((stream[i + 1] & 0xff) << 16) | ((stream[i + 2] & 0xff) << 8) | (stream[i + 3] & 0xff);
            byte[] f = new byte[n];
            System.arraycopy(stream, i + 4, f, 0, n);
            out.add(f);
            i += 4 + n;
        }
        return out;
    }

    @Setup
    public void load() {
        jsonEvents = jsonLines(fixture("watch-pods.json"));
        protoFrames = frames(fixture("watch-pods.pb"));
        if (jsonEvents.size() != protoFrames.size()) {
            throw new IllegalStateException("the captures differ: " + jsonEvents.size() + " JSON events, " + protoFrames.size() + " frames");
        }
        jsonWatch = fixture("watch-pods.json");
        protoWatch = fixture("watch-pods.pb");
        jsonList = fixture("list-pods.json");
        protoList = fixture("list-pods.pb");
    }

    /** One reader over the whole answer, as the watch reads it. */
    @Benchmark
    public void watchJson(Blackhole bh) throws IOException {
        JsonReader in = new JsonReader(new InputStreamReader(new ByteArrayInputStream(jsonWatch), StandardCharsets.UTF_8));
        in.setStrictness(Strictness.LENIENT);
        while (in.peek() != JsonToken.END_DOCUMENT) {
            bh.consume(SlimPodJson.readWatchEvent(in));
        }
    }

    /** Frame by frame, each copied out of the answer as the watch reads it. */
    @Benchmark
    public void watchProtobuf(Blackhole bh) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(protoWatch));
        while (in.available() > 0) {
            byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            bh.consume(SlimPodProto.readWatchEvent(frame));
        }
    }

    @Benchmark
    public V1PodList listJson() throws IOException {
        return SlimPodJson.readList(new JsonReader(new InputStreamReader(new ByteArrayInputStream(jsonList), StandardCharsets.UTF_8)));
    }

    @Benchmark
    public V1PodList listProtobuf() throws IOException {
        return SlimPodProto.readList(new ByteArrayInputStream(protoList));
    }
}
