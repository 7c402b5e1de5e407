package com.cobro.sdk;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * A real HTTP server on loopback (the JDK's) that answers each request with the next scripted answer and
 * records what it received: the generated clients and the helpers are tested over real HTTP, without the
 * network. An answer of status 0 closes the connection without answering (no answer).
 */
public final class ScriptedServer implements AutoCloseable {
  public record Answer(int status, String body, Map<String, String> headers) {}

  public record Received(String method, String path, String query, String body, Map<String, List<String>> headers) {}

  private final HttpServer server;
  private final Deque<Answer> answers = new ArrayDeque<>();
  public final List<Received> received = new ArrayList<>();

  public ScriptedServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public ScriptedServer answer(int status, String body) {
    return answer(status, body, Map.of());
  }

  public ScriptedServer answer(int status, String body, Map<String, String> headers) {
    synchronized (answers) {
      answers.add(new Answer(status, body, headers));
    }
    return this;
  }

  /** Closes the connection without an answer. */
  public ScriptedServer noAnswer() {
    return answer(0, "", Map.of());
  }

  public List<String> paths() {
    synchronized (received) {
      return received.stream().map(request -> request.method() + " " + request.path()).toList();
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    synchronized (received) {
      received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), exchange.getRequestURI().getRawQuery(), body,
          Map.copyOf(exchange.getRequestHeaders())));
    }
    Answer answer;
    synchronized (answers) {
      answer = answers.poll();
    }
    if (answer == null) answer = new Answer(500, "{\"code\":\"Unscripted\",\"message\":\"no answer scripted\"}", Map.of());
    if (answer.status() == 0) {
      exchange.close();
      return;
    }
    byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
    boolean json = answer.body().startsWith("{") || answer.body().startsWith("[");
    exchange.getResponseHeaders().set("Content-Type", json ? "application/json" : "text/plain");
    answer.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
    exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
