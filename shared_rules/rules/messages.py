"""What the referee says, one table per language: the rule code names a message, the table words it.

Each table is one string of `key: text` lines (one string costs the board's heap far less than a
dict of strings). A text is a format string with positional `{}` fields; `say(key, *args)` gives
the (English, Russian) pair an event carries (events.event). Refusals of commands stay in English
beside their checks: they answer the caller, not the players at the table.
Keys: plain ones are shared steps (common.py) and the foul codes of CONTRACT section 2;
`eb.`, `nb.`, `sp.` belong to eight-ball, nine-ball and straight pool.
"""

EN = """
new_game: New {} game: {} v {}; {} breaks
call: {} calls {}{}
call_ball: ball {}
call_pocket:  in {}
safety: {} plays a safety
push_out: {} announces a push-out
choice_void: The late ball changed the shot: the earlier choice no longer applies
undo: Last shot taken back: {} to shoot
undo_new_game: New game taken back: the {} game goes on, {} to shoot
lag: {} won the lag; {} breaks
stalemate: Stalemate: balls re-racked; {} plays from the kitchen
hanging_early: A hanging ball dropped in time and counts for the last shot
hanging_late: Ball dropped {} s after the shot: put it back on the lip of {}
shot: {} is shooting
guessed: Play went on without identifying the ball: best guess used
implied_choice: Play went on: taken as '{}'
deciding_lag: Deciding game: lag for the break
next_rack: Game {}: {} breaks
foul: Foul by {}: {}
turn: {} to shoot
ball_in_hand: {}: ball in hand
ball_in_hand_kitchen: {}: ball in hand from the kitchen
respot: Spot ball {} on the {}
pocketed: {} pocketed {}
over: {} wins the game: {}
identify: Which ball dropped in {}?
cue_pocketed: cue ball pocketed
no_rail: no ball reached a rail
illegal_break: illegal break
wrong_first_contact: wrong ball hit first
no_contact: cue ball hit no ball
jumped_ball: ball off the table
double_hit: double hit
push_shot: push shot
touched_ball: ball touched
no_foot_on_floor: no foot on the floor
bad_stroke: improper stroke
near_ball: improper near-ball stroke
moving_ball: shot before the balls stopped
kitchen: ball in hand from the kitchen misplayed
interference: opponent interfered
three_fouls: three fouls in a row
eb.solids: solids (1-7)
eb.stripes: stripes (9-15)
eb.group: {} takes {}; {} has {}
eb.rerack: Re-rack: {} breaks
eb.lose: {} {}
eb.loss_jumped: jumped the 8 off the table
eb.loss_on_foul: pocketed the 8 on a foul
eb.loss_with_last: pocketed the 8 with the last ball of the group
eb.loss_early: pocketed the 8 before clearing the group
eb.loss_on_safety: pocketed the 8 on a safety, with no pocket called
eb.loss_wrong_pocket: pocketed the 8 in a pocket that was not called ({})
eb.win: the 8 pocketed after clearing the group
eb.offer_break_8_scratch: {}: break again, or spot the 8 and shoot from the kitchen
eb.offer_break_8: {}: the 8 dropped on the break: break again or spot the 8 and play on
eb.offer_illegal_break: {}: play the table as it lies, re-rack and break, or make the breaker break again
eb.break_jump_bih: {}: play the cue ball where it lies or take it in hand in the kitchen
eb.accept: {} plays the table as it lies
eb.both_groups: Both groups dropped without a call: the table stays open; call a ball
nb.win: the 9 legally pocketed
nb.win_break: the 9 legally pocketed on the break
nb.push_no_foul: No foul: a push-out need not touch a ball or reach a rail
nb.offer_push: Push-out: {} plays the position or passes the shot back to {}
nb.break_continue: Legal break: {} shoots again (a push-out is allowed)
nb.three_fouls: three fouls in a row by {}
nb.two_fouls: {} has 2 fouls in a row: a third foul loses the game
nb.offer_miss: {} missed the lowest ball: {} plays the position or makes {} shoot again
nb.pass_back: {} passes the shot back: {} plays the push-out position
nb.reshoot: {} makes {} shoot again from the position
nb.accept: {} plays the position as it lies
sp.identify_called: Several balls dropped in {}: was ball {} one of them? Identify them
sp.any_first: No foul: in straight pool any ball may be hit first
sp.uncalled: No ball and pocket called: a safety; the balls are spotted
sp.two_fouls: {} has two fouls in a row: a third costs 1 + 15 points
sp.respot_pockets: Spot the ball(s) that dropped in {} on the foot spot
sp.offer_offender: {}: play the table as it lies, or re-rack all 15 and make {} break
sp.offer_rebreak: {}: play the table as it lies, or make {} break again
sp.win: reached {} points
sp.rerack_full: All 15 balls re-racked; {} goes on
sp.rerack_14: 14 balls re-racked, apex spot empty; ball {} and the cue ball stay; {} goes on
sp.fifteenth_head_spot: ball {} goes on the head spot
sp.cue_head_spot: the cue ball goes on the head spot (the centre spot if taken)
sp.rebreak: Balls re-racked: {} breaks again
sp.offender_breaks: All 15 balls re-racked: {} must break
sp.accept: {} plays the table as it lies
"""

RU = """
new_game: Новая партия ({}): {} — {}; разбивает {}
call: {} заказывает {}{}
call_ball: шар {}
call_pocket:  в {}
safety: {} объявляет отыгрыш
push_out: {} объявляет пуш-аут
choice_void: Поздно упавший шар изменил удар: прежний выбор не действует
undo: Последний удар отменён: бьёт {}
undo_new_game: Новая партия отменена: прежняя партия ({}) продолжается, бьёт {}
lag: {} выиграл розыгрыш; разбивает {}
stalemate: Глухая позиция: шары в пирамиду; {} играет из дома
hanging_early: Зависший шар упал вовремя и засчитан за последний удар
hanging_late: Шар упал позже 5 с после удара: вернуть его на край лузы ({})
shot: Удар: {}
guessed: Игра продолжена без опознания шара: принят наиболее вероятный
implied_choice: Игра продолжена: выбран вариант '{}'
deciding_lag: Решающая партия: разыграйте право разбития
next_rack: Партия {}: разбивает {}
foul: Фол, {}: {}
turn: Ход переходит к игроку {}
ball_in_hand: {}: биток с руки
ball_in_hand_kitchen: {}: биток с руки из дома
respot: Выставить шар {} ({})
pocketed: {} забил {}
over: {} выиграл партию: {}
identify: Какой шар упал в лузу {}?
cue_pocketed: биток в лузе
no_rail: ни один шар не дошёл до борта
illegal_break: неправильное разбитие
wrong_first_contact: первым задет не тот шар
no_contact: биток не коснулся шаров
jumped_ball: шар вылетел за борт
double_hit: двойное касание
push_shot: удар пропихом
touched_ball: касание шара
no_foot_on_floor: нет ноги на полу
bad_stroke: неправильный удар
near_ball: неправильный удар по близкому шару
moving_ball: удар до остановки шаров
kitchen: нарушение при ударе из дома
interference: вмешательство соперника
three_fouls: три фола подряд
eb.solids: цветные (1-7)
eb.stripes: полосатые (9-15)
eb.group: {} играет {}; {} — {}
eb.rerack: Новая пирамида: разбивает {}
eb.lose: {} {}
eb.loss_jumped: выбил восьмёрку за борт
eb.loss_on_foul: забил восьмёрку с нарушением правил
eb.loss_with_last: забил восьмёрку вместе с последним шаром своей группы
eb.loss_early: забил восьмёрку, не сыграв все шары своей группы
eb.loss_on_safety: забил восьмёрку при отыгрыше, без заказа лузы
eb.loss_wrong_pocket: забил восьмёрку не в заказанную лузу ({})
eb.win: восьмёрка забита после своей группы
eb.offer_break_8_scratch: {}: разбить заново или выставить восьмёрку и бить с руки из дома
eb.offer_break_8: {}: восьмёрка упала при разбитии: разбить заново или выставить её и продолжить
eb.offer_illegal_break: {}: играть из позиции, разбить новую пирамиду самому или передать разбитие сопернику
eb.break_jump_bih: {}: играть с места или с руки из дома
eb.accept: {} играет из сложившейся позиции
eb.both_groups: Без заказа забиты шары обеих групп: стол остаётся открытым; закажите шар
nb.win: девятка забита правильным ударом
nb.win_break: девятка забита правильным ударом с разбития
nb.push_no_foul: Не фол: при выставке биток может не касаться шаров и не доходить до борта
nb.offer_push: Выставка: {} играет позицию или возвращает удар игроку {}
nb.break_continue: Правильное разбитие: {} бьёт снова (можно объявить выставку)
nb.three_fouls: три фола подряд у игрока {}
nb.two_fouls: У игрока {} 2 фола подряд: третий фол подряд — проигрыш партии
nb.offer_miss: {} не попал в наименьший шар: {} играет позицию или заставляет повторить удар
nb.pass_back: {} возвращает удар: {} играет позицию после выставки
nb.reshoot: {} заставляет игрока {} повторить удар
nb.accept: {} принимает позицию и бьёт
sp.identify_called: В лузу {} упало несколько шаров: был ли среди них шар {}? Опознайте их
sp.any_first: Не фол: в 14.1 первым можно задеть любой шар
sp.uncalled: Шар и луза не заказаны: отыгрыш; шары выставляются
sp.two_fouls: У игрока {} два фола подряд: третий стоит 1 + 15 очков
sp.respot_pockets: Выставить шар(ы) из лузы {} на заднюю отметку
sp.offer_offender: {}: играть позицию как есть или поставить пирамиду и заставить {} разбивать
sp.offer_rebreak: {}: играть позицию как есть или заставить {} разбить снова
sp.win: набрал {} очков
sp.rerack_full: Все 15 шаров ставятся в пирамиду; продолжает {}
sp.rerack_14: 14 шаров в пирамиду без шара на вершине; шар {} и биток остаются; продолжает {}
sp.fifteenth_head_spot: шар {} ставится на переднюю отметку
sp.cue_head_spot: биток ставится на переднюю отметку (на центральную, если занята)
sp.rebreak: Пирамида установлена заново: {} разбивает снова
sp.offender_breaks: Все 15 шаров в пирамиду: разбивает {}
sp.accept: {} играет позицию как есть
"""


def text(table, key):
    """The text of `key` in `table`, or None."""
    i = table.find("\n" + key + ": ")
    if i < 0:
        return None
    i += len(key) + 3
    j = table.find("\n", i)
    return table[i:j]


def say(key, *args):
    """The (English, Russian) texts of message `key` with `args` filled in."""
    return text(EN, key).format(*args), text(RU, key).format(*args)


def say_each(key, en_args, ru_args):
    """Like `say`, with each language's own arguments (texts already in that language)."""
    return text(EN, key).format(*en_args), text(RU, key).format(*ru_args)


def words(key):
    """A message without fields, as an (English, Russian) pair; an unknown key stands for itself
    (a foul code's name)."""
    return text(EN, key) or key, text(RU, key) or key
