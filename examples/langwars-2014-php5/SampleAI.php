<?php
// A Lang Wars bot as the 2014 PHP samples were: `php5` in run.sh.
echo "READY\n";
fflush(STDOUT);
list($turns, $players, $targets) = array_map('intval', explode(' ', trim(fgets(STDIN))));
$attention = explode(' ', trim(fgets(STDIN)));
for ($t = 0; $t < $turns; $t++) {
    list($turn, $kind) = explode(' ', trim(fgets(STDIN)));
    $turn = intval($turn);
    for ($i = 0; $i < $targets; $i++) fgets(STDIN);
    fgets(STDIN);
    if ($turn % 2 == 1) fgets(STDIN);
    $n = $turn % 2 == 1 ? 5 : 2;
    $out = array();
    for ($i = 0; $i < $n; $i++) $out[] = $i % $targets;
    echo implode(' ', $out) . "\n";
    fflush(STDOUT);
}
