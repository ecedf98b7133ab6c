#!/usr/bin/env bash
# check_exports.sh LIB MPI_H [FUNCTIONS_MD] — the library's dynamic symbol table holds only MPI_*, PMPI_* and
# sctpmpi_* names; every MPI_ function is a weak alias of a strong PMPI_ one at the same address;
# every function mpi.h declares as MPI_ it also declares as PMPI_, and the library defines both.
set -u
lib=$1 hdr=$2 doc=${3:-}
fail=0
syms=$(nm -D --defined-only "$lib") || { echo "nm failed on $lib"; exit 1; }

other=$(echo "$syms" | awk '{print $3}' | grep -Ev '^(MPI_|PMPI_|sctpmpi_)' | grep -Ev '^_(init|fini|edata|end|_bss_start)$')
if [ -n "$other" ]; then
  echo "FAILED: the library exports $(echo "$other" | wc -l) names outside MPI_/PMPI_/sctpmpi_:"
  echo "$other" | head -20
  fail=1
fi

# MPI_ functions: weak (W); PMPI_: strong text (T), same address
weak_bad=$(echo "$syms" | awk '$3 ~ /^MPI_/ && $2 != "W" {print $3" ("$2")"}')
if [ -n "$weak_bad" ]; then
  echo "FAILED: MPI_ symbols that are not weak:"; echo "$weak_bad" | head; fail=1
fi
n_mpi=$(echo "$syms" | awk '$3 ~ /^MPI_/' | wc -l)
mism=$(echo "$syms" | awk '$3 ~ /^P?MPI_/ {n=$3; sub(/^P/,"",n); if ($3 ~ /^PMPI_/) p[n]=$1; else m[n]=$1}
  END {for (k in m) if (!(k in p) || p[k] != m[k]) print k; for (k in p) if (!(k in m)) print "P"k}')
if [ -n "$mism" ]; then
  echo "FAILED: MPI_/PMPI_ pairs missing or at different addresses:"; echo "$mism" | head; fail=1
fi

# mpi.h: every MPI_ prototype has a PMPI_ twin, and the library defines both
# a prototype starts a line with its return type
decl() { grep -oE "^(int|double|MPI_[A-Za-z]+) +$1[A-Za-z0-9_]+\(" "$hdr" | grep -oE "$1[A-Za-z0-9_]+\(" | tr -d '(' | sort -u; }
mpi_decl=$(decl MPI_)
pmpi_decl=$(decl PMPI_ | sed 's/^P//')
nodecl=$(comm -23 <(echo "$mpi_decl") <(echo "$pmpi_decl"))
if [ -n "$nodecl" ]; then
  echo "FAILED: mpi.h declares without a PMPI_ twin:"; echo "$nodecl" | head; fail=1
fi
undef=$(comm -23 <(echo "$mpi_decl") <(echo "$syms" | awk '{print $3}' | grep '^MPI_' | sort -u))
if [ -n "$undef" ]; then
  echo "FAILED: mpi.h declares functions the library does not define:"; echo "$undef" | head; fail=1
fi
# docs/mpi-functions.md: a row for every exported function, not marked missing
if [ -n "$doc" ]; then
  undoc=$(comm -23 <(echo "$syms" | awk '{print $3}' | grep '^MPI_' | sort -u) \
                   <(grep -oE '^\| `MPI_[A-Za-z0-9_]+` \| [TIU] \|' "$doc" | grep -oE 'MPI_[A-Za-z0-9_]+' | sort -u))
  if [ -n "$undoc" ]; then
    echo "FAILED: exported but without a T/I/U row in $(basename "$doc"):"; echo "$undoc" | head; fail=1
  fi
fi
[ $fail -eq 0 ] && echo "exports: $n_mpi MPI_ functions, each a weak alias of its PMPI_ twin; nothing else but sctpmpi_ objects" && echo " No Errors"
exit $fail
