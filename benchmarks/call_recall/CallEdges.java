// Exact call resolution for Java through javac's attributed trees (com.sun.source).
// Used by benchmarks/call_recall.py; compiled and run by it, never part of graphrag.
//
// Usage: java -cp DIR CallEdges ROOT  -> one tab-separated line per call site:
//   file  line  kind  target_file  target_line  target_name
// file/target_file are relative to ROOT; target_file is "-" when the callee is outside
// ROOT (JDK, a missing dependency); sites javac cannot attribute are not printed.
// kind: bare | this | super | static | method | delegation | new | ref
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.util.Elements;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class CallEdges {
    public static void main(String[] args) throws Exception {
        Path root = Paths.get(args[0]).toAbsolutePath().normalize();
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(p -> p.toString().endsWith(".java")).sorted().forEach(files::add);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm =
                javac.getStandardFileManager(null, null, StandardCharsets.UTF_8);
        // Missing third-party dependencies are errors we accept: their call sites simply
        // stay unattributed (not printed), everything else is attributed as usual.
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        List<String> options = List.of("-proc:none", "-nowarn", "-Xlint:none", "-Xmaxerrs", "0");
        JavacTask task = (JavacTask) javac.getTask(null, fm, diags, options, null,
                fm.getJavaFileObjectsFromPaths(files));
        Iterable<? extends CompilationUnitTree> units = task.parse();
        task.analyze();
        Trees trees = Trees.instance(task);
        SourcePositions pos = trees.getSourcePositions();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        for (CompilationUnitTree cu : units) {
            new Scanner(root, cu, trees, task.getElements(), pos, out).scan(cu, null);
        }
        out.flush();
    }

    static final class Scanner extends TreePathScanner<Void, Void> {
        private final Path root;
        private final CompilationUnitTree cu;
        private final Trees trees;
        private final Elements elements;
        private final SourcePositions pos;
        private final PrintStream out;

        Scanner(Path root, CompilationUnitTree cu, Trees trees, Elements elements,
                SourcePositions pos, PrintStream out) {
            this.root = root;
            this.cu = cu;
            this.trees = trees;
            this.elements = elements;
            this.pos = pos;
            this.out = out;
        }

        @Override
        public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
            ExpressionTree select = node.getMethodSelect();
            String kind;
            long at;
            if (select instanceof MemberSelectTree ms) {
                at = pos.getEndPosition(cu, ms) - ms.getIdentifier().length();
                kind = receiverKind(ms.getExpression());
            } else {
                at = pos.getStartPosition(cu, select);
                String name = ((IdentifierTree) select).getName().toString();
                kind = name.equals("this") || name.equals("super") ? "delegation" : "bare";
            }
            // javac inserts `super()` into constructors that do not call one: no position
            if (pos.getEndPosition(cu, node) >= 0) {
                emit(at, kind, trees.getElement(getCurrentPath()));
            }
            return super.visitMethodInvocation(node, unused);
        }

        @Override
        public Void visitNewClass(NewClassTree node, Void unused) {
            emit(pos.getStartPosition(cu, node), "new", trees.getElement(getCurrentPath()));
            return super.visitNewClass(node, unused);
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree node, Void unused) {
            emit(pos.getStartPosition(cu, node), "ref", trees.getElement(getCurrentPath()));
            return super.visitMemberReference(node, unused);
        }

        private String receiverKind(ExpressionTree receiver) {
            if (receiver instanceof IdentifierTree id) {
                String name = id.getName().toString();
                if (name.equals("this")) return "this";
                if (name.equals("super")) return "super";
            }
            Element el = trees.getElement(new TreePath(getCurrentPath(), receiver));
            if (el != null && (el.getKind().isClass() || el.getKind().isInterface())) {
                return "static";
            }
            return "method";
        }

        private void emit(long at, String kind, Element el) {
            if (at < 0 || !(el instanceof ExecutableElement)) return;
            long line = cu.getLineMap().getLineNumber(at);
            String file = rel(cu);
            TreePath decl = trees.getPath(el);
            if (decl == null || rel(decl.getCompilationUnit()) == null) {
                out.println(file + "\t" + line + "\t" + kind + "\t-\t0\t" + el.getSimpleName());
                return;
            }
            Tree leaf = decl.getLeaf();
            // Default and anonymous-class constructors are not declared in the source.
            if (!(leaf instanceof MethodTree)
                    || elements.getOrigin(el) != Elements.Origin.EXPLICIT) return;
            CompilationUnitTree dcu = decl.getCompilationUnit();
            long start = pos.getStartPosition(dcu, leaf);
            if (start < 0) return;
            long tline = dcu.getLineMap().getLineNumber(start);
            out.println(file + "\t" + line + "\t" + kind + "\t" + rel(dcu) + "\t" + tline
                    + "\t" + el.getSimpleName());
        }

        private String rel(CompilationUnitTree unit) {
            Path path = Paths.get(unit.getSourceFile().toUri()).toAbsolutePath().normalize();
            return path.startsWith(root) ? root.relativize(path).toString() : null;
        }
    }
}
