"""Kotlin extractor against the kotlin_spring sample repository and small inline sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.parsing import registry
from graphrag.parsing.languages.kotlin import extract
from graphrag.parsing.model import Call, ParseResult, Symbol
from graphrag.parsing.registry import RepoContext

ROOT = Path(__file__).resolve().parents[2] / "sample_repos" / "kotlin_spring"
SRC = "src/main/kotlin/com/example/library"
PKG = "com.example.library"


def parse(rel: str) -> ParseResult:
    return extract((ROOT / SRC / rel).read_bytes(), f"{SRC}/{rel}", RepoContext())


def parse_text(text: str, rel: str = "Demo.kt") -> ParseResult:
    return extract(text.encode(), rel, RepoContext())


def symbol(result: ParseResult, fqn: str) -> Symbol:
    found = [s for s in result.symbols if s.fqn == fqn]
    assert len(found) == 1, f"{fqn}: {[s.fqn for s in result.symbols]}"
    return found[0]


def calls_named(result: ParseResult, name: str) -> list[Call]:
    return [c for c in result.calls if c.name == name]


def test_package_and_module() -> None:
    result = parse("util/Ids.kt")
    assert (result.lang, result.package, result.module) == ("kotlin", f"{PKG}.util", f"{PKG}.util")
    assert parse_text("fun main() {}\n", "scripts/tool.kt").module == "tool"
    assert symbol(parse_text("fun main() {}\n"), "main").kind == "FUNCTION"


def test_classes_objects_and_companions() -> None:
    book = parse("model/Book.kt")
    member = symbol(book, f"{PKG}.model.Member")
    assert (member.kind, member.line_start, member.line_end) == ("CLASS", 24, 41)
    companion = symbol(book, f"{PKG}.model.Member.Companion")
    assert (companion.kind, companion.meta["companion"], companion.line_start) == (
        "OBJECT", True, 27)
    guest = symbol(book, f"{PKG}.model.Member.Companion.guest")
    assert (guest.kind, guest.parent, guest.meta["static"]) == ("METHOD", companion.fqn, True)
    assert symbol(parse("util/IsbnRules.kt"), f"{PKG}.util.IsbnRules").kind == "OBJECT"
    result = parse("model/LoanResult.kt")
    assert symbol(result, f"{PKG}.model.LoanResult").kind == "CLASS"
    assert symbol(result, f"{PKG}.model.LoanResult.NotFound").kind == "OBJECT"
    assert symbol(result, f"{PKG}.model.LoanResult.Success").parent == f"{PKG}.model.LoanResult"
    assert symbol(parse("repository/BookRepository.kt"),
                  f"{PKG}.repository.BookRepository").kind == "INTERFACE"
    inline = parse_text("enum class Color(val rgb: Int) {\n    RED(1),\n}\n"
                        "class A {\n    companion object Factory {\n        fun make() = 1\n"
                        "    }\n}\n")
    assert symbol(inline, "Color").kind == "ENUM"
    assert symbol(inline, "Color.RED").kind == "FIELD"
    assert symbol(inline, "A.Factory.make").kind == "METHOD"


def test_constructors_and_properties() -> None:
    loan = parse("model/Loan.kt")
    ctor = symbol(loan, f"{PKG}.model.Fine.<init>")
    assert (ctor.kind, ctor.line_start, ctor.meta["params"]) == (
        "CONSTRUCTOR", 50, [["cents", "Long"], ["reason", "String"]])
    # primary constructors are not symbols; their val/var parameters are fields
    assert [s.fqn for s in loan.symbols if s.kind == "CONSTRUCTOR"] == [ctor.fqn]
    due = symbol(loan, f"{PKG}.model.Loan.dueDay")
    assert (due.kind, due.signature, due.meta["type"]) == ("FIELD", "val dueDay: Int", "Int")
    assert symbol(loan, f"{PKG}.model.Fine.cents").kind == "FIELD"
    top = parse("util/Ids.kt")
    assert symbol(top, f"{PKG}.util.ID_LENGTH").parent is None
    new_id = symbol(top, f"{PKG}.util.newId(String)")
    assert (new_id.kind, new_id.meta["return_type"], new_id.line_start) == (
        "FUNCTION", "String", 13)
    # plain constructor parameters are not properties
    plain = parse_text("class A(repo: Repo, val name: String)\n")
    assert [s.name for s in plain.symbols if s.kind == "FIELD"] == ["name"]


def test_kdoc_is_stripped() -> None:
    loan = parse("model/Loan.kt")
    assert symbol(loan, f"{PKG}.model.Loan.isOverdue").doc_comment == (
        "Whether the loan should have been returned before [today].\n\n"
        "@param today the current day number")
    assert symbol(loan, f"{PKG}.model.Fine").doc_comment == (
        "A fine owed for a late return. Built through its explicit constructor so that the\n"
        "amount is always validated.")
    assert symbol(parse("model/Book.kt"), f"{PKG}.model.Member.Companion").doc_comment \
        == "Factories for special members."


def test_signatures() -> None:
    controller = parse("controller/LoanController.kt")
    borrow = symbol(controller, f"{PKG}.controller.LoanController.borrow")
    assert borrow.signature == (
        "fun borrow(isbn: String, memberId: String?): ResponseEntity<String>")
    assert symbol(controller, f"{PKG}.controller.LoanController").signature == (
        "class LoanController(private val loanService: LoanService)")
    assert borrow.meta["params"] == [["isbn", "String"], ["memberId", "String?"]]
    assert borrow.meta["annotations"] == ['@PostMapping("/books/{isbn}")']


def test_endpoints() -> None:
    loans = parse("controller/LoanController.kt")
    give_back = symbol(loans, f"{PKG}.controller.LoanController.giveBack")
    assert (give_back.kind, give_back.meta["http_method"], give_back.meta["route"]) == (
        "ENDPOINT", "POST", "/api/loans/{id}/return")
    policy = symbol(loans, f"{PKG}.controller.LoanController.policy")
    assert (policy.meta["http_method"], policy.meta["route"]) == ("GET", "/api/loans/policy")
    assert symbol(loans, f"{PKG}.controller.LoanController.toResponse").kind == "METHOD"
    books = parse("controller/BookController.kt")
    create = symbol(books, f"{PKG}.controller.BookController.create")
    assert (create.meta["http_method"], create.meta["route"]) == ("POST", "/api/books")
    assert symbol(books, f"{PKG}.controller.BookController.byAuthor").meta["route"] \
        == "/api/books/by-author"


def test_imports() -> None:
    imports = {(i.alias, i.target) for i in parse("service/LoanService.kt").imports}
    assert ("newId", f"{PKG}.util.newId") in imports
    assert ("LoanRepository", f"{PKG}.repository.LoanRepository") in imports
    result = parse_text("import a.b.C as D\nimport a.b.*\n\nclass X\n")
    assert [(i.alias, i.target, i.line) for i in result.imports] == [
        ("D", "a.b.C", 1), ("*", "a.b", 2)]


def test_calls_and_receivers() -> None:
    service = parse("service/LoanService.kt")
    borrow = f"{PKG}.service.LoanService.borrow"
    (today,) = [c for c in calls_named(service, "today") if c.caller == borrow]
    assert today.receiver == ["clock"]
    (loan_ctor,) = calls_named(service, "Loan")
    assert (loan_ctor.kind, loan_ctor.receiver) == ("call", None)  # instantiation stays "call"
    (top_level,) = calls_named(service, "loanDaysFor")
    assert (top_level.caller, top_level.receiver) == (borrow, None)
    (policy,) = calls_named(parse("controller/LoanController.kt"), "policyText")
    assert policy.receiver == ["LoanService"]
    (negated,) = calls_named(parse("model/Loan.kt"), "isOverdue")  # `!isOverdue(today)`
    assert (negated.caller, negated.receiver) == (f"{PKG}.model.Loan.daysLate", None)
    (values,) = calls_named(parse("repository/BookRepository.kt"), "toList")
    assert values.receiver == ["booksByIsbn", "values"]
    filtered = calls_named(parse("service/CatalogService.kt"), "filter")
    assert [c.receiver for c in filtered] == [["books", "listAll()"], ["byAuthor()"]]
    inline = parse_text(
        "class A {\n    fun f() {\n        this.repo.find()\n        super.g()\n"
        "        items.forEach(this::save)\n        items.map(::top)\n        x!!.y()\n"
        "    }\n}\n")
    assert [(c.name, c.receiver, c.kind) for c in inline.calls] == [
        ("find", ["this", "repo"], "call"), ("g", ["super"], "call"),
        ("forEach", ["items"], "call"), ("save", ["this"], "ref"),
        ("map", ["items"], "call"), ("top", None, "ref"), ("y", ["x"], "call")]


def test_property_initializer_calls_belong_to_the_class() -> None:
    (init,) = calls_named(parse("model/OverdueReport.kt"), "mutableListOf")
    assert init.caller == f"{PKG}.model.OverdueReport"


def test_heritage() -> None:
    loans = parse("repository/LoanRepository.kt")
    assert [(h.cls, h.base, h.relation) for h in loans.heritage] == [
        (f"{PKG}.repository.LoanRepository", "BaseStore", "extends")]
    ports = parse("service/Ports.kt")
    assert {(h.cls, h.base, h.relation) for h in ports.heritage} == {
        (f"{PKG}.service.ConsoleNotifier", "Notifier", "unknown"),
        (f"{PKG}.service.SystemDayClock", "DayClock", "unknown")}


def test_var_types() -> None:
    service = parse("service/LoanService.kt")
    cls = f"{PKG}.service.LoanService"
    assert service.var_types[cls] == {
        "catalog": "CatalogService", "loans": "LoanRepository", "clock": "DayClock",
        "notifier": "Notifier"}
    borrow = service.var_types[f"{cls}.borrow"]
    assert borrow["loan"] == "=call:Loan"
    assert borrow["member"] == "Member"
    assert "book" not in borrow and "today" not in borrow  # initialised by unknowable calls
    assert service.var_types[f"{cls}.giveBack"]["fine"] == "Fine"
    assert service.var_types[f"{cls}.overdueReport"] == {"report": "=call:OverdueReport"}
    inline = parse_text(
        "class A(repo: Repo) {\n    private val r = repo\n    val m = Maker.build()\n}\n"
        "val shared: Registry = Registry()\n")
    assert inline.var_types["A"] == {"r": "Repo", "m": "=call:Maker.build"}
    assert inline.var_types["Demo"] == {"shared": "Registry"}


def test_overloads_carry_their_parameters_in_the_fqn() -> None:
    result = parse_text("class A {\n    fun f(x: Int) {}\n    fun f(x: List<String>, y: Int?) {}\n"
                        "    fun f(s: String, n: Int = 1, vararg r: Int) {}\n"
                        "    fun g() { f(\"a\", 2L) { it } }\n}\n"
                        "fun top(a: Int) = top(a, 1)\nfun top(a: Int, b: Int) = a + b\n")
    assert sorted(s.fqn for s in result.symbols if s.name == "f") == [
        "A.f(Int)", "A.f(List,Int?)", "A.f(String,Int,Int)"]
    assert symbol(result, "A.g").key_suffix == ""
    assert symbol(result, "A.f(String,Int,Int)").meta["varargs"] is True
    assert {s.fqn for s in result.symbols if s.name == "top"} == {"top(Int)", "top(Int,Int)"}
    call = calls_named(result, "f")[0]
    assert (call.caller, call.args, call.arg_types) == ("A.g", 3, ["String", "Long", None])
    assert calls_named(result, "top")[0].caller == "top(Int)"


def test_syntax_error_gives_partial_result() -> None:
    result = parse_text(
        "package p\n\nclass Ok {\n    fun fine() {\n        helper()\n    }\n}\n\n"
        "class Broken {\n    fun bad( {\n}\n")
    assert result.error_count > 0
    assert symbol(result, "p.Ok.fine").kind == "METHOD"
    assert calls_named(result, "helper")[0].caller == "p.Ok.fine"


def test_queries_are_compiled_once() -> None:
    parse("model/Loan.kt")
    before = registry.query.cache_info().misses
    parse("model/Loan.kt")
    parse("service/LoanService.kt")
    assert registry.query.cache_info().misses == before


@pytest.mark.parametrize("path", sorted(p.relative_to(ROOT / SRC).as_posix()
                                        for p in (ROOT / SRC).rglob("*.kt")))
def test_every_sample_file_parses_cleanly(path: str) -> None:
    result = parse(path)
    assert result.error_count == 0
    assert ParseResult.from_dict(result.to_dict()) == result
    documented = [s for s in result.symbols
                  if s.kind in ("CLASS", "INTERFACE", "ENUM", "OBJECT", "FUNCTION")]
    assert all(s.doc_comment for s in documented)


@pytest.mark.parametrize("newer", [
    'val s = $$"$x"\n',  # multi-dollar interpolation (Kotlin 2.1)
    "class B {\n    fun n(x: Any) = when (x) { is Int if x > 0 -> 1; else -> 0 }\n}\n",  # guards
])
def test_newer_syntax_hides_no_later_declaration(newer: str) -> None:
    """tree-sitter-kotlin 1.1.0 (the newest) puts everything after such a declaration into
    one ERROR node; every declaration outside the bad one must still come out, at its own
    line and character offset."""
    head = "package p\n\nclass A {\n    fun m() = helper()\n}\n\n"
    tail = "\nclass C {\n    fun k() = g(\"é\")\n}\n\nfun last() = 3\n"
    text = head + newer + tail
    result = parse_text(text)
    assert result.error_count > 0
    assert {s.fqn for s in result.symbols} >= {"p.A", "p.A.m", "p.C", "p.C.k", "p.last"}
    last = symbol(result, "p.last")
    assert last.line_start == text.count("\n", 0, text.index("fun last")) + 1
    assert last.char_start == text.index("fun last")
    assert [(c.caller, c.name) for c in result.calls] == [("p.A.m", "helper"), ("p.C.k", "g")]


def test_route_annotations_use_const_vals_of_the_file() -> None:
    """``const val``s (top level, objects, companions) fill ``@GetMapping(LIVE)``,
    ``"$READY/now"``, ``"${Paths.ITEMS}/x"`` and ``A + "/b"``; unknown names stay."""
    result = parse_text(
        "package p\n\n@RestController\n@RequestMapping(\"/api\")\nclass A {\n"
        "    @GetMapping(LIVE)\n    fun live() = 1\n\n"
        "    @GetMapping(\"$READY/now\")\n    fun ready() = 1\n\n"
        "    @GetMapping(\"${Paths.ITEMS}/x\")\n    fun items() = 1\n\n"
        "    @PostMapping(\"$UNKNOWN/y\")\n    fun other() = 1\n\n"
        "    companion object {\n        const val LIVE = \"/live\"\n"
        "        const val READY = LIVE + \"/ready\"\n    }\n\n"
        "    object Paths {\n        const val ITEMS = \"/items\"\n    }\n}\n")
    routes = {s.name: s.meta["route"] for s in result.symbols if s.kind == "ENDPOINT"}
    assert routes == {"live": "/api/live", "ready": "/api/live/ready/now",
                      "items": "/api/items/x", "other": "/api/$UNKNOWN/y"}
