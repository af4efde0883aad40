"""The catalogue of wrong and of alternative-correct implementations, graded.

``tests/catalogue/wrong/<exercise>__<mistake>.py`` is the solution of one
exercise with one usual student mistake; ``tests/catalogue/right/<exercise>__<variant>.py``
is another correct way to write it. Adding a file adds its tests.

(a) every wrong file loses points on its own exercise (and, shown with one full
    grading per exercise, costs nothing anywhere else);
(b) every right file scores full marks;
(c) every check (each test function in checks/public and checks/hidden) fails
    for at least one wrong file: no check is dead weight;
(d) key mistakes get the diagnosis written for them, and no hint written for
    one mistake is shown for another (``NOT_MISLED``); every diagnosis a wrong
    file gets is its own mistake's, as its ``# diagnosis:`` lines say
    (tests/support/catalogue_marks.py);
(e) the untouched stubs score 0 with "not implemented yet", the solutions 100;
(f) a file that imports earlier exercises is graded with the grader's modules
    for them, whatever the student's own earlier files hold: a line
    ``# submitted with: wrong/<file>.py`` (or ``right/<file>.py``, or
    ``# submitted with: the stub of <exercise>``) puts that file in the
    submission in place of the solution, and that earlier file loses its own
    points, never the later exercise's, nor is it named in its feedback.

Submissions are graded in process by the session ``grader``; each catalogue
file is graded once (``only=`` its exercise) and the grade is shared by the
tests that need it.
"""

import ast
import functools
import re
from pathlib import Path

import pytest
from catalogue_marks import diagnoses, marked
from conftest import EXERCISES, SOLUTIONS, make_submission

from grader.exercises import IDS

CATALOGUE = Path(__file__).resolve().parents[1] / "catalogue"
CHECKS = Path(__file__).resolve().parents[2] / "checks"
WRONG = sorted((CATALOGUE / "wrong").glob("*.py"))
RIGHT = sorted((CATALOGUE / "right").glob("*.py"))

# Realistic mistakes that no check catches. Reported, not fixed here: the
# checks are someone else's to change. strict=True: when a check starts
# catching one of these, the xfail turns into a failure and the entry must go.
NOT_CAUGHT: dict[str, str] = {}
# Correct implementations that a check fails.
WRONGLY_FAILED: dict[str, str] = {}

# One wrong file per exercise, graded in full: the other exercises keep full
# marks. Marked "representative" in the files themselves (tests/support/catalogue_marks.py);
# where a later exercise imports the exercise (ex6 imports ex5_head, ex7
# ex6_block), that later one must still be graded with stand-ins.
REPRESENTATIVE = marked("representative")

# (wrong file, check that must fail, words its feedback must contain)
DIAGNOSES = [
    ("ex0_weighted_sum__softmax_dim0", "test_batched_random", ["softmax over dim 0", "dim=-1"]),
    ("ex0_weighted_sum__matmul_without_unsqueeze", "test_batched_random", ["You computed weights @ values", "(B, B, C)", "(B, 1, T)", "dimension of size 1 before T"]),
    # A size the public checks use, hard-coded: the public check itself draws another at the teacher's grading.
    ("ex6_block__three_heads_hard_coded", "test_multi_head_attention", ["parameters do not match the contract", "head_size=4"]),
    ("ex6_block__head_size_hard_coded", "test_multi_head_attention", ["parameters do not match the contract", "head_size=4"]),
    ("ex0_weighted_sum__torch_matmul_of_the_row", "test_batched_random", ["You computed weights @ values", "(B, B, C)"]),
    ("ex0_weighted_sum__no_softmax", "test_worked_example", ["softmax is missing"]),
    ("ex0_weighted_sum__normalised_by_sum_of_scores", "test_equal_scores_average", ["divided the scores by their sum"]),
    ("ex0_weighted_sum__naive_exp_overflows", "test_large_scores_do_not_overflow", ["overflows", "Subtract the largest score"]),
    # A shift by one number for the whole batch, or by something other than each row's max: which row is not finite says which.
    ("ex0_weighted_sum__shift_by_global_max", "test_large_scores_do_not_overflow", ["one number (the largest score of the whole batch)", "its own largest score"]),
    ("ex0_weighted_sum__shift_by_row_mean", "test_large_scores_do_not_overflow", ["not its largest score", "no exponent is above 0"]),
    ("ex0_weighted_sum__squeeze_drops_a_batch_of_one", "test_more_batch_dims_and_one_position", ["batch dim of size 1 was dropped", "only the dim you added"]),
    ("ex0_weighted_sum__sum_then_squeeze", "test_more_batch_dims_and_one_position", ["batch dim of size 1 was dropped"]),
    ("ex0_weighted_sum__float32_cast", "test_float64", ["dtype torch.float32", "the dtype is torch.float32, expected torch.float64"]),
    ("ex1_averaging__triu", "test_matrix_values", ["torch.tril"]),
    ("ex1_averaging__triu", "test_rows_sum_to_one_no_future", ["never the future"]),
    ("ex1_averaging__not_normalised", "test_matrix_values", ["Not normalised"]),
    ("ex1_averaging__divided_by_T", "test_matrix_values", ["divided every row by T"]),
    ("ex1_averaging__mean_over_all_positions", "test_average_past_random", ["averaged over all positions"]),
    ("ex1_averaging__matrix_on_the_right", "test_average_past_ignores_the_future", ["on the left of x"]),
    ("ex1_averaging__integer_matrix", "test_matrix_is_float_and_size_one", ["integer matrix"]),
    ("ex1_averaging__float32_matrix_only", "test_average_past_keeps_the_dtype", ["different dtypes", "convert the matrix to x's dtype"]),
    ("ex2_scores__k_at_q_transposed", "test_small_example", ["not k @ qᵀ"]),
    ("ex3_scaling__divides_by_head_size", "test_example", ["divided by head_size itself"]),
    ("ex3_scaling__multiplies_by_sqrt", "test_example", ["multiplied by the square root"]),
    ("ex3_scaling__scales_by_shape", "test_uses_head_size_not_shape", ["scores.shape[-1]"]),
    ("ex3_scaling__in_place_mul", "test_input_left_unchanged", ["mul_"]),
    ("ex3_scaling__in_place_mul", "test_leaves_the_scores_alone", ["mul_"]),
    ("ex4_masking__filled_with_zero", "test_mask_of_ones", ["-inf", "filled the future with 0"]),
    ("ex4_masking__triu_masks_the_past", "test_mask_of_ones", ["tril and triu are swapped"]),
    ("ex4_masking__masks_the_diagonal", "test_single_position", ["never mask the diagonal"]),
    ("ex4_masking__minus_1e9", "test_mask_of_ones", ["-1e9", "float('-inf')"]),
    ("ex4_masking__in_place_masked_fill", "test_input_left_unchanged", ["not masked_fill_"]),
    ("ex4_masking__weights_fill_the_input", "test_weights_leave_the_scores_alone", ["do not modify them in place", "scores[...] = ..."]),
    ("ex4_masking__weights_masked_fill_in_place", "test_weights_leave_the_scores_alone", ["do not modify them in place", "masked_fill_"]),
    # At the edges of T (1, longer than 8) the answer is a new tensor and the input stays as it was.
    ("ex4_masking__returns_the_input_at_T_1", "test_input_left_unchanged", ["a view sharing its memory", "at T = 1 too the result is a new tensor"]),
    ("ex4_masking__detached_view_when_nothing_is_masked", "test_input_left_unchanged", ["a view sharing its memory"]),
    ("ex4_masking__weights_of_one_written_into_the_input", "test_weights_leave_the_scores_alone", ["at T = 1 there is nothing to mask", "a new tensor"]),
    ("ex4_masking__in_place_beyond_eight", "test_input_left_unchanged", ["shape (1, ", "scores[...] = ... (in place)"]),
    ("ex4_masking__softmax_dim_minus_2", "test_weights_rows_and_future", ["dim=-1"]),
    ("ex4_masking__no_mask_in_weights", "test_weights_rows_and_future", ["There is no mask"]),
    ("ex5_head__scaled_by_n_embd", "test_output_matches", ["scaled by n_embd", "head_size"]),
    ("ex5_head__no_scaling", "test_output_matches", ["not scaled"]),
    ("ex5_head__mask_filled_with_zero", "test_head_wider_than_input", ["filled the future's scores with 0", "-inf"]),
    ("ex5_head__no_mask", "test_does_not_see_the_future", ["sees the future"]),
    ("ex5_head__functional_dropout_always_on", "test_dropout_off_in_eval", ["entries differ"]),
    ("ex5_head__dropout_on_output", "test_dropout_on_the_weights", ["not to the output"]),
    ("ex5_head__detach_input", "test_input_gradient", ["detach"]),
    ("ex5_head__detach_key", "test_gradients_reach_every_parameter", ["key.weight", "the graph is cut"]),
    ("ex5_head__sums_x_not_v", "test_head_wider_than_input", ["sum the values v"]),
    ("ex6_block__layernorm_over_T_and_C", "test_block_does_not_see_the_future", ["last dim only"]),
    ("ex6_block__post_norm", "test_block_pre_norm_residuals", ["post-norm"]),
    ("ex6_block__no_proj", "test_multi_head_attention", ["proj.weight", "not found"]),
    ("ex6_block__ffwd_width_n", "test_feed_forward", ["net.0.weight", "(48, 12)"]),
    ("ex6_block__reversed_head_order", "test_many_heads", ["in the order of heads"]),
    ("ex6_block__attention_dropout_always_on", "test_attention_dropout_off_in_eval", ["entries differ"]),
    ("ex7_gpt__no_position_embedding", "test_logits", ["no position embedding", "torch.arange(T)"]),
    ("ex7_gpt__no_position_embedding", "test_position_embeddings_matter", ["nothing tells the positions apart"]),
    ("ex7_gpt__positions_from_idx", "test_position_embeddings_matter", ["nothing tells the positions apart"]),
    ("ex7_gpt__no_ln_f", "test_logits", ["final layer norm"]),
    ("ex7_gpt__block_args_wrong_order", "test_logits", ["another order", "Block(n_embd, n_head, block_size, dropout)"]),
    ("ex7_gpt__one_block", "test_logits", ["blocks.1", "not built by calling the contract's class"]),
    ("ex7_gpt__returns_logits_only", "test_logits", ["one tensor returned", "(logits, loss)"]),
    ("ex7_gpt__blocks_without_dropout", "test_dropout_passed_on_and_off_in_eval", ["not passed on to Block"]),
    ("ex7_gpt__loss_last_position_only", "test_loss_over_every_position", ["the last position's only"]),
    ("ex7_gpt__loss_summed", "test_loss_over_every_position", ["reduction='sum'"]),
    ("ex7_gpt__loss_of_probabilities", "test_loss_over_every_position", ["does the softmax itself"]),
    ("ex7_gpt__first_position_logits", "test_worked_example_counting", ["the first position's logits"]),
    ("ex7_gpt__first_position_logits", "test_generate_continues_from_the_last_position", ["the first position's logits"]),
    ("ex7_gpt__crop_keeps_first", "test_generate_crops_a_long_idx", ["keeps the first block_size tokens"]),
    ("ex7_gpt__no_crop", "test_generate_crops_a_long_idx", ["IndexError", "self(idx)"]),
    # How much context is kept shows with a model whose next token follows the first token it is given.
    ("ex7_gpt__crop_one_short", "test_generate_crops_a_long_idx", ["one token fewer than block_size"]),
    ("ex7_gpt__crop_one_short", "test_generate_continues_from_the_last_position", ["one token fewer than block_size"]),
    ("ex7_gpt__crop_last_token_only", "test_generate_crops_a_long_idx", ["Only the last token is given to the model"]),
    ("ex7_gpt__crop_last_token_only", "test_generate_continues_from_the_last_position", ["Only the last token is given to the model"]),
    ("ex7_gpt__argmax_not_sampled", "test_generate_samples_with_multinomial", ["torch.multinomial"]),
    # The same mistakes in files that import earlier exercises whose own files are wrong or stubs:
    # the diagnosis is the later exercise's own (the earlier modules are the grader's).
    ("ex5_head__mask_filled_with_zero_own_ex3_a_stub", "test_head_wider_than_input", ["filled the future's scores with 0", "-inf"]),
    ("ex5_head__not_scaled_with_ex4_as_module", "test_output_matches", ["not scaled"]),
    ("ex4_masking__no_mask_in_weights_by_imported_weighted_sum", "test_weights_rows_and_future", ["There is no mask"]),
]

# (wrong file, check that must fail, words its feedback must contain, words it
# must not contain): a hint written for one mistake never appears for another;
# what differs is said in general terms instead.
NOT_MISLED = [
    # A correct softmax whose result has the wrong shape: nothing about softmax.
    ("ex0_weighted_sum__matmul_without_unsqueeze", "test_batched_random", ["a different number of dimensions"], ["Softmax over", "softmax over", "dim=-1"]),
    # Pre-scaled scores are not transposed ones.
    ("ex2_scores__pre_scaled", "test_random_batch", ["already scaled"], ["Transpose only the last two dims", "k.T"]),
    # Dropout on the weights at the wrong rate is not dropout in the wrong place.
    ("ex5_head__dropout_rate_fixed", "test_dropout_on_the_weights", ["the dropout rate is not the one passed in"], ["Apply dropout to the weights", "not to the output"]),
    # Unscaled scores have nothing to do with the mask's size or the dtype.
    ("ex5_head__no_scaling", "test_one_head_many_lengths", ["entries differ"], ["tril[:T, :T]", "current T", "hard-code float32"]),
    ("ex5_head__no_scaling", "test_float64", ["entries differ"], ["hard-code float32", "tril buffer"]),
    # The grader's stand-ins are not the student's parameters.
    ("ex6_block__ffwd_built_inline", "test_block_pre_norm_residuals", ["ffwd: 不是调用约定的类建的", "not built by calling the contract's class"], ["standin", "lin.weight"]),
    # An error in backward names the student's forward line, not only autograd's message.
    ("ex6_block__in_place_second_residual", "test_block_gradients", ["computing the gradients (backward)", "modified by an inplace operation", "ex6_block.py, line"], []),
    # A loss that matches none of the usual mistakes says what differs, and names none of them.
    ("ex7_gpt__loss_transposed_then_flattened", "test_loss_over_every_position", ["got", "expected"], ["reduction='sum'", "last position's only", "softmax itself", "log_softmax"]),
    # Sampling over the wrong dim is neither the first position nor the wrong crop nor argmax.
    ("ex7_gpt__softmax_over_batch", "test_generate_continues_from_the_last_position", ["entries differ"], ["first position", "first block_size", "torch.multinomial"]),
    # One shift for the whole batch is not a shift by the wrong number in each row, nor the plain overflow, and the other way round.
    ("ex0_weighted_sum__shift_by_amax_item", "test_large_scores_do_not_overflow", ["The row of scores about 0 is not finite"], ["exp(1000) overflows", "its mean or its first score"]),
    ("ex0_weighted_sum__shift_by_first_score", "test_large_scores_do_not_overflow", ["not its largest score"], ["exp(1000) overflows", "whole batch"]),
    ("ex0_weighted_sum__naive_exp_overflows", "test_large_scores_do_not_overflow", ["exp(1000) overflows"], ["whole batch", "its mean or its first score"]),
    # A crop one token short is neither the first block_size tokens nor the last token alone.
    ("ex7_gpt__crop_start_off_by_one", "test_generate_crops_a_long_idx", ["one token fewer than block_size"], ["first block_size", "last token is given", "first position"]),
    # The smallest float32 is printed as a number a person can read.
    ("ex4_masking__finfo_min", "test_mask_of_ones", ["-3.403e+38"], ["-340282346638528859811704183484516925440"]),
]


def exercise_of(path: Path) -> str:
    return path.stem.split("__")[0]


SUBMITTED_WITH = re.compile(r"# submitted with: (?:(?P<file>(?:wrong|right)/(?P<ex>ex\d+_\w+?)__\w+\.py)|the stub of (?P<stub>ex\d+_\w+))\s*")


def submitted_with(path: Path) -> dict[str, str]:
    """The student's own earlier files a catalogue file is graded with (exercise id -> source), see (f)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# submitted with:"):
            m = SUBMITTED_WITH.fullmatch(line)
            assert m, f"{path.name}: {line!r} names no catalogue file or stub"
            if m["stub"]:
                out[m["stub"]] = Path(EXERCISES, m["stub"] + ".py").read_text(encoding="utf-8")
            else:
                out[m["ex"]] = (CATALOGUE / m["file"]).read_text(encoding="utf-8")
    return out


def case_files(path: Path) -> dict[str, str]:
    """The files a catalogue file is graded with over the solutions: itself and what it is submitted with."""
    return {**submitted_with(path), exercise_of(path): path.read_text(encoding="utf-8")}


def with_known(paths, known: dict) -> list:
    return [pytest.param(p, id=p.stem, marks=[pytest.mark.xfail(strict=True, reason=known[p.stem])] if p.stem in known else []) for p in paths]


def all_checks() -> list[tuple[str, str, str]]:
    """Every check, read from the check files themselves: (exercise, check_id, "public"/"hidden")."""
    out = []
    for visibility in ("public", "hidden"):
        for path in sorted((CHECKS / visibility).glob("test_*.py")):
            exercise = path.stem.removeprefix("test_")
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                    out.append((exercise, node.name, visibility))
    return out


def key(result) -> tuple[str, str, str]:
    return (result.exercise, result.check_id, "hidden" if result.hidden else "public")


def no_grader_trouble(grade) -> None:
    assert not grade.errors, grade.errors
    for r in grade.results:
        assert "please tell your teacher" not in r.feedback, (r.check_id, r.feedback)


# --- grading, once per file ------------------------------------------------


@pytest.fixture(scope="session")
def grade_alone(grader, tmp_path_factory):
    """Grade one catalogue file in place of its exercise, that exercise only.
    The first call grades the whole catalogue, exercise by exercise, each
    exercise's files in one pytest session of the grader (``grade_each``,
    as a batch grades a class): a session per file would cost its start
    and collection each time."""
    cache = {}

    def grade_all() -> None:
        from grader.engine.grading import Job

        for ex in IDS:
            paths = [p for p in WRONG + RIGHT if exercise_of(p) == ex]
            jobs = [Job(make_submission(tmp_path_factory.mktemp(p.stem), case_files(p)), key=p) for p in paths]
            grader.grade_each(jobs, lambda job, grade: cache.__setitem__(job.key, grade), only=ex)

    def grade(path: Path):
        if not cache:
            grade_all()
        if path not in cache:  # a file outside the catalogue's lists
            folder = make_submission(tmp_path_factory.mktemp(path.stem), case_files(path))
            cache[path] = grader.grade(folder, only=exercise_of(path))
        got = cache[path]
        if isinstance(got, BaseException):
            raise got
        return got

    return grade


@pytest.fixture(scope="session")
def solution_grade(grader):
    return grader.grade(SOLUTIONS)


@pytest.fixture(scope="session")
def full_points(solution_grade) -> dict:
    return {ex: solution_grade.exercise_points(ex)[1] for ex in IDS}


# --- the files themselves ----------------------------------------------------


@pytest.mark.parametrize("path", WRONG + RIGHT, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_catalogue_file_is_well_formed(path):
    """Named <exercise>__<name>.py, compiles, differs from the solution; its
    module docstring says the thing in one line, and a wrong file's says it
    in Chinese too, on a second line ``zh: ...`` (the teaching page's tables
    show both; tests/docs/test_mistake_table.py holds the Chinese to it)."""
    assert exercise_of(path) in IDS, path.name
    assert "__" in path.stem and path.stem.split("__", 1)[1], path.name
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    doc = ast.get_docstring(tree)
    lines = doc.strip().splitlines() if doc else []
    one_line = len(lines) == 1 or (path.parent.name == "wrong" and len(lines) == 2 and lines[1].startswith("zh: "))
    assert lines and one_line, f"{path.name}: the module docstring must say the {path.parent.name} thing in one line (a wrong file's with a line 'zh: ...' under it)"
    solution = Path(SOLUTIONS, exercise_of(path) + ".py").read_text(encoding="utf-8")
    assert ast.dump(ast.parse(solution)) != ast.dump(tree)


def test_catalogue_is_big_enough():
    assert len(WRONG) >= 50 and len(RIGHT) >= 15
    for ex in IDS:
        assert any(exercise_of(p) == ex for p in WRONG), f"no wrong file for {ex}"
        assert any(exercise_of(p) == ex for p in RIGHT), f"no right file for {ex}"
    for stem in list(NOT_CAUGHT) + list(REPRESENTATIVE.values()) + [d[0] for d in DIAGNOSES + NOT_MISLED]:
        assert (CATALOGUE / "wrong" / f"{stem}.py").is_file(), stem
    for stem in WRONGLY_FAILED:
        assert (CATALOGUE / "right" / f"{stem}.py").is_file(), stem


# --- (a) wrong files lose points, on their own exercise only --------------------


@pytest.mark.parametrize("path", with_known(WRONG, NOT_CAUGHT))
def test_wrong_file_loses_points(path, grade_alone, full_points):
    ex = exercise_of(path)
    grade = grade_alone(path)
    no_grader_trouble(grade)
    assert {r.exercise for r in grade.results} == {ex}
    for r in grade.results:
        # The mistake must be what is caught, not a file that does not even import.
        assert "importing the file failed" not in r.feedback and "syntax error" not in r.feedback, r.feedback
    got, most = grade.exercise_points(ex)
    assert most == full_points[ex]
    failed = sorted(r.check_id + (" [hidden]" if r.hidden else "") for r in grade.results if not r.passed)
    assert got < most, f"{path.name} scores full marks: no check catches it"
    assert failed


@pytest.mark.parametrize("exercise", IDS)
def test_wrong_file_costs_nothing_elsewhere(exercise, grader, tmp_path, full_points, grade_alone):
    path = CATALOGUE / "wrong" / f"{REPRESENTATIVE[exercise]}.py"
    grade = grader.grade(make_submission(tmp_path, {exercise: path.read_text(encoding="utf-8")}))
    no_grader_trouble(grade)
    for ex in IDS:
        got, most = grade.exercise_points(ex)
        if ex == exercise:
            assert got < most
        else:
            assert (got, most) == (full_points[ex], full_points[ex]), f"{path.name} cost points on {ex}"
    # A full grading and an ``only=`` grading agree on the exercise itself.
    alone = grade_alone(path)
    assert [(key(r), r.passed, r.points) for r in grade.results if r.exercise == exercise] == [(key(r), r.passed, r.points) for r in alone.results]


# --- (b) right files score full marks ------------------------------------------


@pytest.mark.parametrize("path", with_known(RIGHT, WRONGLY_FAILED))
def test_right_file_scores_full_marks(path, grade_alone, full_points):
    ex = exercise_of(path)
    grade = grade_alone(path)
    no_grader_trouble(grade)
    failed = {r.check_id + (" [hidden]" if r.hidden else ""): r.feedback for r in grade.results if not r.passed}
    assert not failed, f"{path.name} is correct but fails:\n" + "\n".join(f"{k}:\n{v}" for k, v in failed.items())
    assert grade.exercise_points(ex) == (full_points[ex], full_points[ex])


def test_right_files_together_score_100(grader, tmp_path, solution_grade):
    """One submission made only of alternative implementations, graded in full."""
    chosen = {}
    for p in RIGHT:
        if p.stem not in WRONGLY_FAILED:
            chosen.setdefault(exercise_of(p), p)
    assert set(chosen) == set(IDS)
    grade = grader.grade(make_submission(tmp_path, {ex: p.read_text(encoding="utf-8") for ex, p in chosen.items()}))
    no_grader_trouble(grade)
    assert [r for r in grade.results if not r.passed] == []
    assert grade.score == grade.max_score == solution_grade.max_score


@pytest.mark.parametrize("draw", range(3))
def test_right_files_score_100_on_any_inputs(grader, tmp_path, draw):
    """Correct code earns every point whatever inputs a teacher's grading draws:
    each right file, graded with fresh inputs (a new secret each draw, as a
    teacher's grading makes; one submission per exercise's files)."""
    from grader.engine.grading import Job, fresh_inputs_seed

    seed = fresh_inputs_seed()
    for ex in IDS:
        paths = [p for p in RIGHT if exercise_of(p) == ex and p.stem not in WRONGLY_FAILED]
        jobs = [Job(make_submission(tmp_path / p.stem, case_files(p)), key=p, inputs_seed=seed) for p in paths]
        got = {}
        grader.grade_each(jobs, lambda job, grade: got.__setitem__(job.key, grade), only=ex)
        for p in paths:
            grade = got[p]
            assert not isinstance(grade, BaseException), grade
            assert grade.inputs_seed == seed
            no_grader_trouble(grade)
            failed = {r.check_id: r.feedback for r in grade.results if not r.passed}
            assert not failed, f"{p.name} with inputs seed {seed}: {failed}"


# --- (c) every check catches something ----------------------------------------


CHECK_LIST = all_checks()


def test_check_list_matches_the_grader(solution_grade):
    assert len(CHECK_LIST) == len(set(CHECK_LIST))
    assert sorted(CHECK_LIST) == sorted(key(r) for r in solution_grade.results)


@pytest.mark.parametrize("check", CHECK_LIST, ids=lambda c: f"{c[0]}-{c[2]}-{c[1]}")
def test_check_catches_a_wrong_file(check, grade_alone):
    exercise = check[0]
    catchers = []
    for path in WRONG:
        if exercise_of(path) != exercise:
            continue
        if any(key(r) == check and not r.passed for r in grade_alone(path).results):
            catchers.append(path.stem)
    assert catchers, f"no wrong implementation in tests/catalogue/wrong fails {check}"


# --- (d) the diagnosis reaches the student ------------------------------------


@pytest.mark.parametrize("stem, check_id, words", DIAGNOSES, ids=[f"{d[0]}-{d[1]}" for d in DIAGNOSES])
def test_feedback_names_the_mistake(stem, check_id, words, grade_alone):
    grade = grade_alone(CATALOGUE / "wrong" / f"{stem}.py")
    results = [r for r in grade.results if r.check_id == check_id and not r.passed]
    assert results, f"{check_id} does not fail for {stem}"
    feedback = "\n".join(r.feedback for r in results)
    for word in words:
        assert word in feedback, f"{word!r} not in the feedback of {check_id} for {stem}:\n{feedback}"
    assert any("\u4e00" <= c <= "\u9fff" for c in feedback), "the feedback has no Chinese half"


@pytest.mark.parametrize("stem, check_id, said, not_said", NOT_MISLED, ids=[f"{d[0]}-{d[1]}" for d in NOT_MISLED])
def test_feedback_does_not_mislead(stem, check_id, said, not_said, grade_alone):
    grade = grade_alone(CATALOGUE / "wrong" / f"{stem}.py")
    results = [r for r in grade.results if r.check_id == check_id and not r.passed]
    assert results, f"{check_id} does not fail for {stem}"
    feedback = "\n".join(r.feedback for r in results)
    for word in said:
        assert word in feedback, f"{word!r} not in the feedback of {check_id} for {stem}:\n{feedback}"
    for word in not_said:
        assert word not in feedback, f"{word!r} is in the feedback of {check_id} for {stem}, where it does not apply:\n{feedback}"


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_every_diagnosis_is_the_files_own(path, grade_alone):
    """A hint that names a mistake appears only for that mistake: each
    diagnosis a wrong file gets (``CheckResult.diagnosis``, results.json's
    ``extra_data.diagnosis``) holds the words of one of its ``# diagnosis:``
    lines. Another mistake's diagnosis means the answer matched what that
    mistake computes too, or that the check failed because of another
    function of the exercise (``checking.caused_by``).

    The lines say what the file *may* get: one the tests' inputs do not
    show may be there for a teacher's (``--inputs-seed``); but its words
    are a hint's, shown here or written in the checks or the grader."""
    own = diagnoses(path.read_text(encoding="utf-8"))
    shown = [(r.check_id + (" [hidden]" if r.hidden else ""), r.diagnosis) for r in grade_alone(path).results if r.diagnosis]
    strangers = [f"{check}: {found.en}" for check, found in shown if not any(words in found.en for words in own)]
    assert not strangers, f"{path.name} gets diagnoses of other mistakes (if one is its own, add '# diagnosis: <its words>' under its docstring):\n" + "\n".join(strangers)
    unknown = [words for words in own if not any(words in found.en for _, found in shown) and words not in hint_sources()]
    assert not unknown, f"{path.name}: '# diagnosis: {unknown[0]}' is the words of no hint the checks or the grader write"


@functools.cache
def hint_sources() -> str:
    """The text of every check and grader module, where hints are written."""
    root = CHECKS.parent
    return "\n".join(p.read_text(encoding="utf-8") for pattern in ("checks/**/*.py", "grader/**/*.py") for p in sorted(root.glob(pattern)))


def test_no_number_runs_to_dozens_of_digits(grade_alone):
    """Feedback prints numbers a person can read: torch.finfo(float32).min is
    -3.403e+38, not 39 digits."""
    import re

    for path in WRONG:
        for r in grade_alone(path).results:
            assert not re.search(r"\d{16}", r.feedback), (path.stem, r.check_id, r.feedback)


# --- (f) a mistake in an earlier exercise costs its own points only ---------------

WITH_EARLIER = [p for p in WRONG + RIGHT if submitted_with(p)]


def test_earlier_files_are_submitted_with_later_ones():
    for path in WITH_EARLIER:
        for ex in submitted_with(path):
            assert IDS.index(ex) < IDS.index(exercise_of(path)), f"{path.name}: {ex} is not an earlier exercise"


@pytest.mark.parametrize("path", WITH_EARLIER, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_earlier_mistakes_cost_their_own_points_only(path, grader, tmp_path, grade_alone, full_points):
    """The student's own earlier files lose their own points (each graded
    from its own file); the later exercise is graded as if they were right
    (test_right_file_scores_full_marks, test_wrong_file_loses_points) and its
    feedback names none of them."""
    folder = make_submission(tmp_path, case_files(path))
    for earlier in submitted_with(path):
        grade = grader.grade(folder, only=earlier)
        no_grader_trouble(grade)
        got, most = grade.exercise_points(earlier)
        assert got < most, f"{path.name}: the {earlier} it is submitted with keeps full marks"
    for r in grade_alone(path).results:
        assert not r.not_implemented, (r.check_id, r.feedback)
        for earlier in submitted_with(path):
            assert earlier not in r.feedback, f"{r.check_id} of {path.name} names {earlier}:\n{r.feedback}"


# --- (e) stubs and solutions --------------------------------------------------


def test_stubs_score_zero_everywhere(grader, tmp_path):
    grade = grader.grade(make_submission(tmp_path, base=EXERCISES))
    no_grader_trouble(grade)
    assert {r.exercise for r in grade.results} == set(IDS)
    for ex in IDS:
        assert grade.exercise_points(ex)[0] == 0, ex
    for r in grade.results:
        assert not r.passed and r.points == 0, r.check_id
        assert "尚未完成" in r.feedback and "not implemented yet" in r.feedback, (r.exercise, r.check_id, r.feedback)
        assert r.not_implemented, (r.exercise, r.check_id)


def test_solutions_score_100(solution_grade):
    no_grader_trouble(solution_grade)
    assert solution_grade.score == solution_grade.max_score == 100
    assert all(r.passed for r in solution_grade.results)
    assert {r.exercise for r in solution_grade.results} == set(IDS)
