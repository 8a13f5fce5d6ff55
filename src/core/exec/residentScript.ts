// The resident launcher's own program (resident.ts runs it with perl). It is the only process that
// forks a step, so the engine (a ~140 MB Node process whose fork costs 5–15 ms on the project's
// machine) never forks per step; perl's fork is well under a millisecond. Perl, because it is on
// every Linux and macOS that has bash and has fork, setsid, select and waitpid in its core.
//
// Engine → resident, on stdin:
//   `L <n>\n` then n bytes: NUL-separated id, cwd, count of NAME=value, the NAME=value entries, argv.
//   `P <id> <s>\n` / `R <id> <s>\n`: stop / go on reading the step's stream s (1 stdout, 2 stderr):
//   the engine's log is behind, so the step blocks on its own full pipe (the output throttle).
//   `D <id>\n`: close what is still open of the step's pipes (the engine stopped reading them).
// Resident → engine, on stdout:
//   `S <id> <pid>\n` started (pid = its process group); `F <id> C|E|A|K\n` not
//   started (no such directory, no such executable, not executable, fork failed); `O <id> <s> <n>\n` then n bytes
//   of its output; `E <id> <s>\n` that stream ended; `X <id> <wait status>\n` it exited, reaped.
// Data is never parsed as code: argv and environment go from the request to execvp untouched.
//
// EOF on stdin means the engine is gone (however it died: the kernel closes the pipe): the
// resident TERMs every step group still running, KILLs what is left after a second, and exits.
export const RESIDENT_SCRIPT = String.raw`
use strict; use warnings; use POSIX (); use Fcntl qw(F_SETFL O_NONBLOCK);
$0 = 'braid-resident';
my (%step, %byfd, %bypid);
my $in = '';
pipe(my $wake_r, my $wake_w) or die;
fcntl($_, F_SETFL, O_NONBLOCK) for ($wake_r, $wake_w);
$SIG{CHLD} = sub { syswrite($wake_w, 'x') };
$SIG{PIPE} = 'IGNORE';
$SIG{$_} = 'IGNORE' for qw(INT HUP);
# Reports are gathered and written once a turn of the loop: one write (and one wake of the engine)
# for a step's start, output, ends and exit when they come together.
my $out = '';
sub say_ { $out .= $_[0] }
sub flush_ { while (length $out) { my $n = syswrite(STDOUT, $out); if (!defined $n) { next if $!{EINTR}; finish(); } substr($out, 0, $n, ''); } }
sub finish {
  my @g = map { $_->{pid} } grep { !defined $_->{status} } values %step;
  kill 'TERM', map { -$_ } @g if @g;
  for (1 .. 10) { last unless grep { kill 0, -$_ } @g; select(undef, undef, undef, 0.1); }
  kill 'KILL', map { -$_ } @g if @g;
  POSIX::_exit(0);
}
sub found {
  my ($exe, $cwd, $path) = @_;
  my $denied = 0;
  my $at = sub { my $f = $_[0] =~ m{^/} ? $_[0] : "$cwd/$_[0]"; return $f if -f $f && -x _; $denied ||= -e _; undef };
  if ($exe =~ m{/}) { my $f = $at->($exe); return ($f, $denied); }
  for my $d (split /:/, $path, -1) { my $f = $at->(($d eq '' ? '.' : $d) . "/$exe"); return ($f, 0) if defined $f; }
  return (undef, $denied);
}
sub launch {
  my @f = split /\0/, $_[0], -1;
  my ($id, $cwd, $n) = splice(@f, 0, 3);
  my @env = splice(@f, 0, $n);
  my @argv = @f;
  return say_("F $id C\n") unless -d $cwd;
  my ($path) = map { substr($_, 5) } grep { /^PATH=/ } @env;
  my ($exe, $denied) = found($argv[0], $cwd, defined $path ? $path : '/usr/bin:/bin');
  return say_($denied ? "F $id A\n" : "F $id E\n") unless defined $exe;
  pipe(my $r1, my $w1) or return say_("F $id K\n");
  pipe(my $r2, my $w2) or return say_("F $id K\n");
  my $pid = fork;
  return say_("F $id K\n") unless defined $pid;
  if ($pid == 0) {
    setpgrp(0, 0);
    $SIG{$_} = 'DEFAULT' for qw(CHLD PIPE INT HUP);
    POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new());
    open(STDIN, '<', '/dev/null');
    POSIX::dup2(fileno $w1, 1); POSIX::dup2(fileno $w2, 2);
    chdir $cwd or POSIX::_exit(127);
    %ENV = (); for (@env) { my $i = index($_, '='); $ENV{substr($_, 0, $i)} = substr($_, $i + 1); }
    exec { $exe } @argv or print STDERR "braid: cannot run $argv[0]: $!\n";
    POSIX::_exit(127);
  }
  # Both sides set the group, so it exists before the engine hears of the step and may signal it.
  setpgrp($pid, $pid); close $w1; close $w2;
  $step{$id} = { pid => $pid, fh => { 1 => $r1, 2 => $r2 }, held => {} };
  $bypid{$pid} = $id;
  $byfd{fileno $r1} = [$id, 1]; $byfd{fileno $r2} = [$id, 2];
  say_("S $id $pid\n");
}
sub shut { my ($id, $s) = @_; my $st = $step{$id} or return; my $fh = delete $st->{fh}{$s} or return; delete $byfd{fileno $fh}; close $fh; }
sub forget { my $id = shift; my $st = $step{$id}; delete $step{$id} if $st && defined $st->{status} && !%{$st->{fh}}; }
sub reap {
  while ((my $p = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $id = delete $bypid{$p}; next unless defined $id;
    $step{$id}{status} = $?; say_("X $id $?\n"); forget($id);
  }
}
while (1) {
  flush_();
  my $rin = '';
  vec($rin, 0, 1) = 1; vec($rin, fileno $wake_r, 1) = 1;
  for my $fd (keys %byfd) { my ($id, $s) = @{$byfd{$fd}}; vec($rin, $fd, 1) = 1 unless $step{$id}{held}{$s}; }
  my $k = select(my $rout = $rin, undef, undef, 1);
  reap();
  next if $k <= 0;
  if (vec($rout, fileno $wake_r, 1)) { 1 while sysread($wake_r, my $x, 512); }
  for my $fd (keys %byfd) {
    next unless vec($rout, $fd, 1) && $byfd{$fd};
    my ($id, $s) = @{$byfd{$fd}};
    my $n = sysread($step{$id}{fh}{$s}, my $d, 65536);
    next if !defined $n && $!{EINTR};
    if ($n) { say_("O $id $s $n\n$d"); next; }
    shut($id, $s); say_("E $id $s\n"); forget($id);
  }
  if (vec($rout, 0, 1)) {
    my $n = sysread(STDIN, $in, 65536, length $in);
    next if !defined $n && $!{EINTR};
    finish() unless $n;
    while (1) {
      if ($in =~ /\AL (\d+)\n/) {
        my ($h, $len) = ($+[0], $1);
        last if length($in) < $h + $len;
        my $req = substr($in, $h, $len); substr($in, 0, $h + $len, '');
        launch($req);
      } elsif ($in =~ /\A([PRD]) (\d+)(?: ([12]))?\n/) {
        my ($c, $id, $s) = ($1, $2, $3);
        substr($in, 0, $+[0], '');
        next unless $step{$id};
        if ($c eq 'P') { $step{$id}{held}{$s} = 1 } elsif ($c eq 'R') { delete $step{$id}{held}{$s} }
        else { shut($id, $_) for 1, 2; forget($id); }
      } else { last; }
    }
  }
}
`;
