package org.toscanini.engine;

import groovy.json.JsonOutput;
import groovy.json.JsonSlurper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One operation through the mock container's management bus, for a BPEL plan's
 * {@code invokeOperationAsync}: the SOAP request's fields as the bus's REST invocation, then the
 * polls until it answers. What the bus answers becomes the callback's parameters (a failed
 * operation's {@code Fault} among them).
 */
final class BusCall {
    private BusCall() {
    }

    static Map<String, String> run(HttpClient http, String busUrl, Map<String, String> f, Map<String, String> params,
            String activity) throws IOException, InterruptedException {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("csarID", f.getOrDefault("CsarID", ""));
        info.put("serviceTemplateID", "{" + f.getOrDefault("ServiceTemplateIDNamespaceURI", "") + "}"
                + f.getOrDefault("ServiceTemplateIDLocalPart", ""));
        info.put("serviceInstanceID", f.getOrDefault("ServiceInstanceID", ""));
        if (f.containsKey("RelationshipTemplateID")) {
            info.put("relationshipTemplateID", f.get("RelationshipTemplateID"));
        } else {
            info.put("nodeTemplateID", f.getOrDefault("NodeTemplateID", ""));
            info.put("nodeInstanceID", f.getOrDefault("NodeInstanceID", ""));
        }
        info.put("interface", f.getOrDefault("InterfaceName", ""));
        info.put("operation", f.getOrDefault("OperationName", ""));
        String payload = JsonOutput.toJson(Map.of("invocation-information", info, "params", params));
        HttpResponse<String> posted = send(http, HttpRequest.newBuilder(URI.create(busUrl))
                .header("Content-Type", "application/json").header(Mock.ACTIVITY_HEADER, activity)
                .POST(HttpRequest.BodyPublishers.ofString(payload, StandardCharsets.UTF_8)));
        String location = posted.headers().firstValue("Location")
                .orElseThrow(() -> new IOException("the bus answered " + posted.statusCode() + " without a Location: "
                        + posted.body()));
        URI poll = URI.create(busUrl).resolve(location);
        for (int i = 0; i < 100; i++) {
            HttpResponse<String> r = send(http, HttpRequest.newBuilder(poll).header(Mock.ACTIVITY_HEADER, activity)
                    .GET());
            if (r.statusCode() >= 300) {
                throw new IOException("polling the bus: " + r.statusCode() + " " + r.body());
            }
            Object json = new JsonSlurper().parseText(r.body());
            if (json instanceof Map<?, ?> m && "PENDING".equals(m.get("status"))) {
                continue;
            }
            Map<String, String> out = new LinkedHashMap<>();
            if (json instanceof Map<?, ?> m) {
                m.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
            }
            return out;
        }
        throw new IOException("the bus never answered " + poll);
    }

    private static HttpResponse<String> send(HttpClient http, HttpRequest.Builder b)
            throws IOException, InterruptedException {
        return http.send(b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
