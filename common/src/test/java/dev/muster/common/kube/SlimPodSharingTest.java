package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import io.kubernetes.client.openapi.models.V1Pod;
import java.io.IOException;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class SlimPodSharingTest {
    private static V1Pod read(String name, String uid, String node) throws IOException {
        JsonReader in = new JsonReader(new StringReader("{\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"sharing\",\"uid\":\"" + uid + "\","
                + "\"labels\":{\"app\":\"web\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"web-1\","
                + "\"uid\":\"rs\",\"controller\":true}]},"
                + "\"spec\":{\"nodeName\":\"" + node + "\",\"schedulerName\":\"muster\",\"containers\":[{\"name\":\"c\","
                + "\"resources\":{\"requests\":{\"cpu\":\"250m\",\"memory\":\"1Gi\"}}}]},\"status\":{\"phase\":\"Running\"}}"));
        in.setStrictness(Strictness.LENIENT);
        return SlimPodJson.readPod(in);
    }

    @Test
    void podsOfOneTemplateOnOneNodeShareTheirSpecStatusLabelsAndOwners() throws IOException {
        V1Pod a = read("web-a", "ua", "n1");
        V1Pod b = read("web-b", "ub", "n1");
        assertThat(b.getSpec()).isSameAs(a.getSpec());
        assertThat(b.getStatus()).isSameAs(a.getStatus());
        assertThat(b.getMetadata().getLabels()).isSameAs(a.getMetadata().getLabels());
        assertThat(b.getMetadata().getOwnerReferences()).isSameAs(a.getMetadata().getOwnerReferences());
        assertThat(b.getMetadata().getNamespace()).isSameAs(a.getMetadata().getNamespace());
        assertThat(b.getMetadata().getName()).isEqualTo("web-b");
        assertThat(PodConverter.toCore(b).id().uid()).isEqualTo("ub");
    }

    @Test
    void aPodOnAnotherNodeKeepsItsOwnSpecAndConvertsAsBefore() throws IOException {
        V1Pod a = read("web-c", "uc", "n1");
        V1Pod b = read("web-d", "ud", "n2");
        assertThat(b.getSpec()).isNotSameAs(a.getSpec());
        assertThat(PodConverter.toCore(b).nodeName()).isEqualTo("n2");
        assertThat(PodConverter.toCore(b).request()).isEqualTo(PodConverter.toCore(a).request());
    }

    @Test
    void anInternerKeepsTheFirstOfEqualValuesAndStartsAfreshWhenFull() {
        Interner<String> strings = new Interner<>(2);
        String first = new String("x");
        assertThat(strings.intern(new String("x"))).isSameAs(strings.intern(first)).isNotSameAs(first);
        strings.intern("y");
        strings.intern("z"); // a third value: over capacity, forgets all
        assertThat(strings.size()).isZero();
        assertThat(strings.intern(first)).isSameAs(first);
        assertThat(strings.intern(null)).isNull();
    }

    @Test
    void aQuantityTextEqualsItsValueAndHashesAlike() {
        assertThat(new SlimJson.Text("1")).isEqualTo(new SlimJson.Text("1000m")).hasSameHashCodeAs(new SlimJson.Text("1000m"));
        assertThat(new SlimJson.Text("lots")).isEqualTo(new SlimJson.Text("lots")).isNotEqualTo(new SlimJson.Text("1"));
    }
}
