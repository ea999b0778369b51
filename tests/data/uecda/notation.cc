// Prints toRecordString(TableToMove(table)) for hand-made server tables,
// i.e. exactly what the server writes in the `play` line for such a submission.
#include "../src/UECda.h"
#include <iostream>
using namespace std;
static void show(const char* what, int t[8][15]) {
    Move m = TableToMove(t);
    cout << what << " -> " << toRecordString(m) << endl;
}
// rows: 0 S, 1 H, 2 D, 3 C; columns: 1..13 = 3..2, 0 = below 3, 14 = above 2
int main() {
    int t[8][15];
    clearAll(t); t[2][7] = 1; t[0][7] = 2; show("9D + joker as 9S", t);
    clearAll(t); t[0][14] = 2; show("lone joker at [0][14]", t);
    clearAll(t); t[3][0] = 2; show("lone joker at [3][0]", t);
    clearAll(t); for (int h = 0; h < 4; h++) t[h][5] = 1; t[4][5] = 2; show("five-card set of 7s", t);
    clearAll(t); t[1][4] = 1; t[1][5] = 2; t[1][6] = 1; show("run 6H JK(7H) 8H", t);
    clearAll(t); t[1][0] = 2; t[1][1] = 1; t[1][2] = 1; show("run JK(below 3) 3H 4H", t);
    clearAll(t); t[0][12] = 1; t[0][13] = 1; t[0][14] = 2; show("run AS 2S JK(above 2)", t);
    clearAll(t); t[3][8] = 1; t[3][9] = 1; t[3][10] = 1; t[3][11] = 1; t[3][12] = 1; show("run TC..AC", t);
    clearAll(t); t[0][1] = 1; show("single 3S", t);
    clearAll(t); t[1][8] = 1; t[2][8] = 1; t[3][8] = 1; t[0][8] = 2; show("TC TD TH + joker as TS", t);
    clearAll(t); show("pass", t);
    clearAll(t); t[0][13] = 2; show("joker alone at 2S cell", t);
    return 0;
}
