"""Swift overload choice on snippets of several files: the call edges a Swift user's
graph holds where one name has several functions (argument labels, closures, literals,
implicit members, Swift's ranking), and no edge where the call does not single one out."""

from __future__ import annotations

from graphrag.graph.resolve import build_graph
from tests.parsing.test_swift_extract import calls_of, snippet, sym

PROTECTED = (
    "final class Protected<Value> {\n"
    "  init(_ value: Value) {}\n"
    "  func write<U>(_ closure: (inout Value) throws -> U) rethrows -> U { fatalError() }\n"
    "  func write(_ value: Value) { write { $0 = value } }\n"
    "}\n")


def test_a_closure_goes_to_the_closure_overload_and_a_value_to_the_value_one() -> None:
    calls = calls_of({
        "Sources/A/Protected.swift": PROTECTED,
        "Sources/A/Use.swift":
            "final class Use {\n"
            "  let state = Protected<String?>(nil)\n"
            "  func close() { state.write { $0 = nil } }\n"
            "  func clear() { state.write(nil) }\n"
            "  func name() { state.write(\"x\") }\n"
            "}\n"})
    closure, value = "A.Protected.write(_:_)", "A.Protected.write(_:Value)"
    assert {c for c in calls if c[1].startswith("A.Protected.write")} == {
        ("A.Protected.write(_:Value)", closure),  # `write { $0 = value }` inside
        ("A.Use.close", closure), ("A.Use.clear", value), ("A.Use.name", value)}


def test_overloads_by_return_type_are_kept_and_a_call_of_them_is_no_edge() -> None:
    files = {
        "Sources/A/Encoder.swift":
            "final class Encoder {\n"
            "  func encode(_ value: any Encodable) throws -> Component { fatalError() }\n"
            "  func encode(_ value: any Encodable) throws -> String { \"\" }\n"
            "  func encode(_ value: any Encodable) throws -> Data { Data() }\n"
            "  func helper() -> Int { 1 }\n"
            "}\n"
            "struct Component {}\n",
        "Sources/A/Use.swift":
            "func run(encoder: Encoder) {\n"
            "  let text: String = try encoder.encode(1)\n"
            "  _ = encoder.helper()\n"
            "}\n"}
    encoder = snippet(files["Sources/A/Encoder.swift"], "Sources/A/Encoder.swift")
    assert {s.fqn for s in encoder.symbols if s.name == "encode"} == {
        "A.Encoder.encode(_:Encodable,->Component)", "A.Encoder.encode(_:Encodable,->String)",
        "A.Encoder.encode(_:Encodable,->Data)"}
    graph = build_graph([snippet(code, rel) for rel, code in files.items()])
    nodes = graph.node_by_key()
    calls = {(nodes[e.src_key].fqn, nodes[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    assert calls == {("A.run", "A.Encoder.helper")}
    assert [u.reason for u in graph.unresolved if u.name == "encode"] == ["overload"]


def test_a_method_named_like_a_property_and_one_in_another_files_extension_are_told_apart(
        ) -> None:
    calls = calls_of({
        "Sources/A/Request.swift":
            "class Request {\n"
            "  let uploadProgress = Progress()\n"
            "  func uploadProgress(queue: Queue = .main,"
            " closure: @escaping (Progress) -> Void) -> Self { self }\n"
            "}\n"
            "struct Queue { static let main = Queue() }\n",
        "Sources/A/Concurrency.swift":
            "extension Request {\n"
            "  func uploadProgress(bufferingPolicy: Int = 0) -> Stream {\n"
            "    uploadProgress(queue: .main) { _ in }\n"
            "  }\n"
            "}\n",
        "Sources/A/Use.swift":
            "func watch(request: Request) {\n"
            "  request.uploadProgress { progress in print(progress) }\n"
            "  _ = request.uploadProgress(bufferingPolicy: 2)\n"
            "}\n"})
    closure = "A.Request.uploadProgress(queue:closure:)"
    assert calls >= {("A.Request.uploadProgress", closure), ("A.watch", closure),
                     ("A.watch", "A.Request.uploadProgress")}
    ext = snippet("extension Request {\n  func uploadProgress(bufferingPolicy: Int = 0) {}\n}\n",
                  "Sources/A/Concurrency.swift")
    assert sym(ext, "A.Request.uploadProgress").parent == "A.Request"


def test_argument_labels_pick_the_initialiser_and_the_method() -> None:
    calls = calls_of({"Sources/A/Session.swift":
                      "class Session {\n"
                      "  init(session: URLSession, start: Bool = true) {}\n"
                      "  convenience init(configuration: Config = Config(), start: Bool = true) {"
                      " self.init(session: URLSession()) }\n"
                      "  func append(_ data: Data, withName name: String) {}\n"
                      "  func append(_ stream: Stream, withLength length: Int) {}\n"
                      "}\n"
                      "func make(stream: Stream) {\n"
                      "  let s = Session(start: false)\n"
                      "  s.append(stream, withLength: 3)\n"
                      "}\n"})
    assert ("A.make", "A.Session.init(configuration:start:)") in calls
    assert ("A.make", "A.Session.append(_:withLength:)") in calls
    assert not any(dst == "A.Session.init(session:start:)" and src == "A.make"
                   for src, dst in calls)


ENDPOINTS = {
    "Sources/A/Session.swift":
        "protocol URLConvertible {}\n"
        "protocol URLRequestConvertible {}\n"
        "class Session {\n"
        "  func request(_ convertible: any URLConvertible, method: String = \"GET\","
        " interceptor: Interceptor? = nil) -> Request { Request() }\n"
        "  func request(_ convertible: any URLRequestConvertible,"
        " interceptor: Interceptor? = nil) -> Request { Request() }\n"
        "}\n"
        "class Request {}\n"
        "class Interceptor {}\n",
    "Tests/ATests/Helpers.swift":
        "@testable import A\n"
        "struct Endpoint: URLConvertible, URLRequestConvertible {\n"
        "  static var `default`: Endpoint { Endpoint() }\n"
        "  static func status(_ code: Int) -> Endpoint { Endpoint() }\n"
        "}\n"
        "final class Sequence: URLRequestConvertible {}\n"
        "extension URLRequestConvertible where Self == Sequence {\n"
        "  static func endpoints(_ endpoints: Endpoint...) -> Self { Sequence() }\n"
        "}\n"
        "extension Session {\n"
        "  func request(_ endpoint: Endpoint, method: String = \"GET\","
        " interceptor: Interceptor? = nil) -> Request { Request() }\n"
        "  func request(_ endpoint: Endpoint, interceptor: Interceptor? = nil) -> Request {\n"
        "    request(endpoint as (any URLRequestConvertible), interceptor: interceptor)\n"
        "  }\n"
        "}\n",
}


def test_implicit_members_the_concrete_type_and_fewest_defaults_pick_the_overload() -> None:
    """`.default` is an Endpoint's: of the Endpoint overloads Swift prefers the one
    leaving out fewer defaults; `.endpoints(...)` is a member of the protocol's
    extension for another type, so the protocol overload takes it."""
    files = {**ENDPOINTS, "Tests/ATests/UseTests.swift":
             "import A\n"
             "func use(session: Session, url: String) {\n"
             "  session.request(.default)\n"
             "  session.request(.status(401), interceptor: Interceptor())\n"
             "  session.request(.endpoints(.default, .status(200)))\n"
             "  session.request(url)\n"
             "}\n"}
    graph = build_graph([snippet(code, rel) for rel, code in files.items()])
    nodes = graph.node_by_key()
    by_line = {(nodes[e.src_key].fqn, line): nodes[e.dst_key].fqn for e in graph.edges
               if e.kind == "CALLS" for line in e.lines}
    short = "A.Session.request(_:interceptor:)"
    assert by_line[("ATests.use", 3)] == short.replace("A.", "ATests.")
    assert by_line[("ATests.use", 4)] == short.replace("A.", "ATests.")
    # the URLRequestConvertible overload of the library's Session
    assert by_line[("ATests.use", 5)] == short
    # a String is no Endpoint and may be either protocol: no choice, no edge
    assert ("ATests.use", 6) not in by_line
    assert ("request", "overload") in {(u.name, u.reason) for u in graph.unresolved}


def test_a_trailing_closure_goes_by_its_arity_and_whether_it_returns_a_value() -> None:
    calls = calls_of({
        "Sources/A/Request.swift":
            "typealias Validation = (Int, String, Data?) -> Bool\n"
            "class Request {\n"
            "  func validate(_ validation: @escaping Validation) -> Self { self }\n"
            "  func validate<S: Sequence>(statusCode codes: S) -> Self { self }\n"
            "  func validate(performing closure: @escaping () -> Void) -> Self { self }\n"
            "  @_disfavoredOverload\n"
            "  func onResponse(perform handler: @escaping (Int) -> Disposition) -> Self {"
            " self }\n"
            "  func onResponse(perform handler: @escaping (Int) -> Void) -> Self { self }\n"
            "}\n"
            "enum Disposition { case allow, cancel }\n",
        "Sources/A/Use.swift":
            "func use(request: Request) {\n"
            "  request.validate { code, _, _ in code == 200 }\n"
            "  request.validate { print(1) }\n"
            "  request.onResponse { code in print(code) }\n"
            "  request.onResponse { code in\n"
            "    return .cancel\n"
            "  }\n"
            "}\n"})
    graph_calls = {dst for src, dst in calls if src == "A.use"}
    assert graph_calls == {"A.Request.validate(_:)", "A.Request.validate(performing:)",
                           "A.Request.onResponse(perform:(Int)->Void)",
                           "A.Request.onResponse(perform:(Int)->Disposition)"}


def test_generic_arguments_leave_no_edge_and_a_bound_type_parameter_is_its_protocol() -> None:
    files = {
        "Sources/A/Monitor.swift":
            "struct Response<Success> {}\n"
            "protocol Monitor {\n"
            "  func request(_ r: Request, didParse response: Response<Data?>)\n"
            "  func request<Value>(_ r: Request, didParse response: Response<Value>)\n"
            "}\n"
            "class Request {\n"
            "  var monitor: (any Monitor)?\n"
            "  func parsed<T>(_ value: T) {\n"
            "    let response = Response<T>()\n"
            "    monitor?.request(self, didParse: response)\n"
            "  }\n"
            "  func serialize<S: DataSerializer>(using serializer: S) {}\n"
            "  func serialize<S: FileSerializer>(using serializer: S) {}\n"
            "  func data() { serialize(using: .data) }\n"
            "}\n"
            "protocol DataSerializer {}\n"
            "protocol FileSerializer {}\n"
            "struct Passthrough: DataSerializer {}\n"
            "extension DataSerializer where Self == Passthrough {\n"
            "  static var data: Passthrough { Passthrough() }\n"
            "}\n"}
    monitor = snippet(files["Sources/A/Monitor.swift"], "Sources/A/Monitor.swift")
    assert {s.fqn for s in monitor.symbols if s.name == "request"} == {
        "A.Monitor.request(_:Request,didParse:Response<Data?>)",
        "A.Monitor.request(_:Request,didParse:Response<Value>)"}
    calls = calls_of(files)
    assert not any(src == "A.Request.parsed" for src, _ in calls)
    assert ("A.Request.data", "A.Request.serialize(using:DataSerializer)") in calls


def test_enum_cases_and_generic_initialisers() -> None:
    result = snippet("enum Path {\n  case `default`, status(Int)\n}\n"
                     "struct Box<Value> { init(_ value: Value) {} }\n"
                     "func make() { _ = Box<Int>(1) }\n")
    assert sym(result, "App.Path.default").kind == "FIELD"
    assert sym(result, "App.Path.status").meta == {"case": True}
    assert ("App.make", "App.Box.init") in calls_of({"Sources/App/a.swift": (
        "struct Box<Value> { init(_ value: Value) {} }\n"
        "func make() { _ = Box<Int>(1) }\n")})


def test_a_type_parameter_named_like_a_class_is_its_protocol_not_that_class() -> None:
    calls = calls_of({"Sources/A/Inspector.swift":
                      "protocol Adapting { func adapt() }\n"
                      "final class Interceptor: Adapting { func adapt() {} }\n"
                      "final class Inspector<Interceptor: Adapting> {\n"
                      "  let interceptor: Interceptor\n"
                      "  init(_ interceptor: Interceptor) { self.interceptor = interceptor }\n"
                      "  func run() { interceptor.adapt() }\n"
                      "}\n"})
    assert ("A.Inspector.run", "A.Adapting.adapt") in calls
    assert ("A.Inspector.run", "A.Interceptor.adapt") not in calls


def test_an_implementation_of_a_requirement_with_a_composed_bound_is_no_second_overload() -> None:
    calls = calls_of({"Sources/A/Encoder.swift":
                      "protocol ParameterEncoder {\n"
                      "  func encode<P: Encodable & Sendable>(_ p: P?, into r: Request)"
                      " -> Request\n"
                      "}\n"
                      "final class JSONEncoder: ParameterEncoder {\n"
                      "  func encode<P: Encodable>(_ p: P?, into r: Request) -> Request { r }\n"
                      "}\n"
                      "struct Request {}\n"
                      "func use(request: Request) {\n"
                      "  _ = JSONEncoder().encode(1, into: request)\n"
                      "}\n"})
    assert ("A.use", "A.JSONEncoder.encode") in calls
    assert ("A.use", "A.ParameterEncoder.encode") not in calls
